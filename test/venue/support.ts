import { readFileSync } from 'node:fs';
import { syncCatalogOnce } from '../../src/catalog/index.js';
import type { Database } from '../../src/db/client.js';
import { createLogger } from '../../src/logger.js';
import { createSimulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { createGammaClient } from '../../src/venue/gamma/client.js';

export const silent = createLogger('silent');

export function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../fixtures/venue/${name}`, import.meta.url), 'utf8'));
}

export function fixtureText(name: string): string {
  return readFileSync(new URL(`../fixtures/venue/${name}`, import.meta.url), 'utf8');
}

/** A simulator on a free port, without random walk unless asked. */
export async function startSimulator(overrides: Partial<SimulatorOptions> = {}) {
  const sim = createSimulator({ port: 0, seed: 7, randomWalk: false, tickIntervalMs: 50, logger: silent, eventCount: 120, ...overrides });
  const urls = await sim.start();
  return { sim, urls };
}

/** A simulator, and one catalog sync pass of `database` from it for the test to run when it wants. */
export async function startSimulatorWithSync(database: Database, overrides: Partial<SimulatorOptions> = {}) {
  const started = await startSimulator(overrides);
  const gamma = createGammaClient({ baseUrl: started.urls.gammaUrl, logger: silent, timeoutMs: 5000 });
  return { ...started, sync: () => syncCatalogOnce({ database, gamma, logger: silent }) };
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

export async function getJson(url: string): Promise<{ status: number; json: any }> {
  const res = await fetch(url);
  return { status: res.status, json: await res.json() };
}

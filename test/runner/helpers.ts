import { EventEmitter } from 'node:events';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { catalogEvents, catalogMarkets, deliveries, notifications, priceSamples, tokenPrices } from '../../src/db/schema/index.js';
import type { SimMarket, SimState } from '../../src/simulator/state.js';
import { createLogger } from '../../src/logger.js';
import { createEngineRunner, type EngineRunner } from '../../src/runner/engine-runner.js';
import { startEngineRole, type EngineRole, type EngineRoleOptions } from '../../src/runner/role.js';
import type { MarketStream } from '../../src/venue/clob/market-socket.js';
import type { MarketMessage } from '../../src/venue/clob/messages.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { startSimulator } from '../venue/support.js';

export const silent = createLogger('silent');

/**
 * The file's test database and venue simulator (made before its tests, closed after them), and
 * engine roles on the simulator's URLs that its tests start (each stopped after its test).
 */
export function simulatorSuite() {
  let env: TestEnv | undefined;
  let sim: Awaited<ReturnType<typeof startSimulator>> | undefined;
  const roles: EngineRole[] = [];
  beforeAll(async () => {
    env = await createTestEnv();
    sim = await startSimulator();
  });
  afterEach(async () => {
    for (const role of roles.splice(0)) await role.stop();
  });
  afterAll(async () => {
    await sim?.sim.stop();
    await env?.close();
  });
  return {
    get env() {
      return env!;
    },
    get sim() {
      return sim!;
    },
    async startRole(options: Partial<EngineRoleOptions> = {}): Promise<EngineRole> {
      const role = await startEngineRole({
        database: env!.database, config: env!.config, logger: silent, clobUrl: sim!.urls.clobUrl, clobWsUrl: sim!.urls.clobWsUrl, ...options,
      });
      roles.push(role);
      return role;
    },
  };
}

export interface Clock {
  now: () => number;
  advance(ms: number): number;
}

export function clock(start = Date.UTC(2026, 0, 1)): Clock {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

export function startRunner(env: TestEnv, c: Clock): EngineRunner {
  return createEngineRunner({ database: env.database, logger: silent, now: c.now, flushIntervalMs: 60_000 });
}

export async function watchlistWith(env: TestEnv, a: TestAccount, events: SeededEvent[]): Promise<string> {
  const res = await env.http
    .post('/watchlists')
    .set(a.auth)
    .send({ name: `wl ${Math.random()}`, events: Object.fromEntries(events.map((e) => [e.id, { autoFetch: true }])) })
    .expect(201);
  return res.body.watchList.id as string;
}

export { subscribe } from '../support/subscriptions.js';

export async function getSub(env: TestEnv, a: TestAccount, id: string) {
  const res = await env.http.get(`/subscription/${id}`).set(a.auth).expect(200);
  return res.body.subscription as {
    status: { enabled: boolean; reason: string };
    triggerCount: number;
    lastTriggeredAt: string | null;
    channels: { type: string; status?: string }[];
  };
}

export async function notificationsOf(env: TestEnv, subscriptionId: string) {
  return env.database.db.select().from(notifications).where(eq(notifications.subscriptionId, subscriptionId)).orderBy(notifications.id);
}

export async function deliveriesOf(env: TestEnv, notificationId: string) {
  return env.database.db.select().from(deliveries).where(eq(deliveries.notificationId, notificationId));
}

export { seedEvent };

/** A market stream of one's own for the engine role: records its tokens, emits what the test gives. */
export function fakeStream() {
  const emitter = new EventEmitter();
  let tokens: string[] = [];
  const stream = {
    setTokens: (ids: Iterable<string>) => void (tokens = [...ids]),
    addTokens: (ids: Iterable<string>) => void (tokens = [...new Set([...tokens, ...ids])]),
    removeTokens: (ids: Iterable<string>) => {
      const gone = new Set(ids);
      tokens = tokens.filter((t) => !gone.has(t));
    },
    connections: () => [tokens],
    feedState: () => [{ tokens, open: true, lastMessageAtMs: Date.now() }],
    on: (e: string, l: (...a: unknown[]) => void) => (emitter.on(e, l), stream),
    off: (e: string, l: (...a: unknown[]) => void) => (emitter.off(e, l), stream),
    close: () => {},
  } as unknown as MarketStream;
  return { stream, tokens: () => tokens, emit: (msg: MarketMessage, at = Date.now()) => emitter.emit('message', msg, at) };
}

/** Copies the simulator's first open markets (one per event) into the catalog tables, so rules can follow their tokens. */
export async function seedFromSimulator(database: Database, state: SimState, count: number): Promise<SimMarket[]> {
  const picked: SimMarket[] = [];
  for (const e of state.events.values()) {
    const m = state.marketsOf(e).find((x) => !x.closed);
    if (!m || picked.length >= count) continue;
    picked.push(m);
    await database.db.insert(catalogEvents).values({ id: e.id, slug: e.slug, title: e.title, volume24hr: 0, closed: false }).onConflictDoNothing();
    await database.db.insert(catalogMarkets).values({
      id: m.id, eventId: e.id, position: 0, question: m.question, outcomes: ['Yes', 'No'], outcomePrices: [0.5, 0.5],
      clobTokenIds: [...m.tokenIds], yesTokenId: m.tokenIds[0],
    }).onConflictDoNothing();
  }
  return picked;
}

/** Moves a simulator market's displayed price with the control endpoint. */
export async function movePrice(controlUrl: string, marketId: string, price: number): Promise<void> {
  const res = await fetch(`${controlUrl}/markets/${marketId}/price`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ price }),
  });
  if (res.status !== 200) throw new Error(`moving the price failed: ${res.status} ${await res.text()}`);
}

/** The price the engine saved for a token (the last one it evaluated), if any. */
/** A token's saved minute samples, oldest first. */
export async function savedSamples(database: Database, token: string): Promise<{ minute: string; price: number }[]> {
  const rows = await database.db.select().from(priceSamples).where(eq(priceSamples.tokenId, token)).orderBy(priceSamples.minute);
  return rows.map((r) => ({ minute: r.minute.toISOString(), price: r.price }));
}

export async function savedPrice(database: Database, token: string): Promise<number | undefined> {
  return (await database.db.select().from(tokenPrices).where(eq(tokenPrices.tokenId, token)))[0]?.price;
}

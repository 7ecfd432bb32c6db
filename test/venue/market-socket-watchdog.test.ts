import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createMarketStream, type MarketStream } from '../../src/venue/clob/market-socket.js';
import { backoffDelay } from '../../src/venue/clob/connection.js';
import { silent, waitFor } from './support.js';

let wss: WebSocketServer | undefined;
let stream: MarketStream | undefined;
afterEach(async () => {
  stream?.close();
  for (const c of wss?.clients ?? []) c.terminate();
  await new Promise((r) => (wss ? wss.close(r) : r(undefined)));
});

/** A server that accepts, records what it is sent and never answers: a silent stall. */
async function silentServer() {
  const received: string[][] = [];
  wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  wss.on('connection', (ws) => {
    const frames: string[] = [];
    received.push(frames);
    ws.on('message', (d) => frames.push(d.toString()));
  });
  await new Promise((r) => wss?.once('listening', r));
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws/market`, received };
}

describe('market stream watchdog', () => {
  it('subscribes in the initial form, sends PING, and reconnects a connection that stays silent', async () => {
    const { url, received } = await silentServer();
    const reseeded: string[][] = [];
    stream = createMarketStream({
      url,
      clobRest: { getBooks: async (ids) => (reseeded.push([...ids]), []) },
      logger: silent,
      pingIntervalMs: 200,
      silenceTimeoutMs: 1000,
      backoff: { baseMs: 50, maxMs: 200 },
    });
    const reconnects: string[][] = [];
    stream.on('reconnected', (t) => reconnects.push(t));
    stream.setTokens(['111', '222']);
    await waitFor(() => received.length >= 2, 4000, 'a second connection');
    expect(JSON.parse(received[0]?.[0] ?? '{}')).toEqual({ assets_ids: ['111', '222'], type: 'market', initial_dump: true, custom_feature_enabled: true });
    expect(received[0]?.filter((f) => f === 'PING').length).toBeGreaterThanOrEqual(3);
    await waitFor(() => reconnects.length >= 1 && reseeded.length >= 1, 2000, 'reconnect and reseed');
    expect(reseeded[0]).toEqual(['111', '222']);
  });

  it('backs off exponentially with jitter, capped at maxMs', () => {
    const b = { baseMs: 100, maxMs: 1000 };
    expect(backoffDelay(0, b, () => 0)).toBe(50);
    expect(backoffDelay(0, b, () => 1)).toBe(100);
    expect(backoffDelay(3, b, () => 1)).toBe(800);
    expect(backoffDelay(10, b, () => 1)).toBe(1000);
    expect(backoffDelay(10, b, () => 0)).toBe(500);
  });
});

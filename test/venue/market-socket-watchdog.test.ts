import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createMarketStream, type MarketStream } from '../../src/venue/clob/market-socket.js';
import { backoffDelay } from '../../src/venue/clob/connection.js';
import { parseBook } from '../../src/venue/clob/messages.js';
import { silent } from './support.js';
import { waitFor } from '../support/wait.js';

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
    await waitFor(() => received.length >= 2, { timeoutMs: 4000, message: 'a second connection' });
    expect(JSON.parse(received[0]?.[0] ?? '{}')).toEqual({ assets_ids: ['111', '222'], type: 'market', initial_dump: true, custom_feature_enabled: true });
    expect(received[0]?.filter((f) => f === 'PING').length).toBeGreaterThanOrEqual(3);
    await waitFor(() => reconnects.length >= 1 && reseeded.length >= 1, { timeoutMs: 2000, message: 'reconnect and reseed' });
    expect(reseeded[0]).toEqual(['111', '222']);
  });

  it('keeps a connection whose frames keep coming, and reconnects it once they stop for the silence timeout', async () => {
    wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    let connections = 0;
    let answering = true;
    wss.on('connection', (ws) => {
      connections++;
      ws.on('message', (d) => {
        if (answering && d.toString() === 'PING') ws.send('PONG');
      });
    });
    await new Promise((r) => wss?.once('listening', r));
    stream = createMarketStream({
      url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
      clobRest: { getBooks: async () => [] },
      logger: silent,
      pingIntervalMs: 100,
      silenceTimeoutMs: 500,
      backoff: { baseMs: 20, maxMs: 50 },
    });
    stream.setTokens(['111']);
    // Four silence timeouts with a PONG every 100 ms: still the first connection.
    await new Promise((r) => setTimeout(r, 2000));
    expect(connections).toBe(1);
    answering = false;
    const stoppedAt = Date.now();
    await waitFor(() => connections >= 2, { timeoutMs: 3000, message: 'a reconnect after the PONGs stop' });
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(400);
  });

  it('after a reconnect, emits REST books except where the socket already gave something newer', async () => {
    wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    let connections = 0;
    wss.on('connection', (ws) => {
      const n = ++connections;
      ws.once('message', () => {
        if (n === 1) return ws.close();
        ws.send(JSON.stringify({ event_type: 'price_change', market: '0xm', timestamp: '5000', price_changes: [{ asset_id: '111', price: '0.6', size: '10', side: 'BUY', best_bid: '0.6', best_ask: '0.62' }] }));
      });
    });
    await new Promise((r) => wss?.once('listening', r));
    const got: string[] = [];
    const book = (asset_id: string, timestamp: string) => ({ asset_id, market: '0xm', timestamp, bids: [{ price: '.4', size: '1' }], asks: [{ price: '.5', size: '1' }] });
    stream = createMarketStream({
      url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
      clobRest: {
        // The REST answer comes after the socket's newer price, whatever the machine's speed.
        getBooks: async () => {
          await waitFor(() => got.includes('price_change:'), { timeoutMs: 3000, message: 'the socket price_change' });
          return [parseBook(book('111', '1000'))!, parseBook(book('222', '9000'))!];
        },
      },
      logger: silent,
      pingIntervalMs: 1000,
      silenceTimeoutMs: 2000,
      backoff: { baseMs: 20, maxMs: 50 },
    });
    stream.on('message', (m) => got.push(`${m.type}:${m.type === 'book' ? m.assetId : ''}`));
    stream.setTokens(['111', '222']);
    await waitFor(() => got.includes('book:222'), { timeoutMs: 3000, message: 'REST book of 222' });
    expect(got).toEqual(['price_change:', 'book:222']);
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

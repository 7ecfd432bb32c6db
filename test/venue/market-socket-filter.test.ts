import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createMarketStream, type MarketStream } from '../../src/venue/clob/market-socket.js';
import type { MarketMessage } from '../../src/venue/clob/messages.js';
import { silent } from './support.js';
import { waitFor } from '../support/wait.js';

let wss: WebSocketServer | undefined;
let stream: MarketStream | undefined;
afterEach(async () => {
  stream?.close();
  for (const c of wss?.clients ?? []) c.terminate();
  await new Promise((r) => (wss ? wss.close(r) : r(undefined)));
});

const entry = (asset_id: string, price: string) => ({ asset_id, price, size: '10', side: 'BUY', hash: 'h', best_bid: price, best_ask: '0.9' });

describe('market stream: messages of tokens not followed', () => {
  it('passes a price_change on with only the followed tokens’ entries, and drops one with none', async () => {
    wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    wss.on('connection', (ws) => {
      ws.once('message', () => {
        // A frame of three messages: both tokens followed, one of two followed, none followed.
        ws.send(JSON.stringify([
          { event_type: 'price_change', market: '0xm', timestamp: '1', price_changes: [entry('111', '0.4'), entry('222', '0.5')] },
          { event_type: 'price_change', market: '0xm', timestamp: '2', price_changes: [entry('999', '0.1'), entry('111', '0.41')] },
          { event_type: 'price_change', market: '0xn', timestamp: '3', price_changes: [entry('999', '0.2')] },
          { event_type: 'last_trade_price', asset_id: '999', market: '0xn', price: '0.2', side: 'BUY', size: '1', timestamp: '4' },
          { event_type: 'last_trade_price', asset_id: '222', market: '0xm', price: '0.5', side: 'BUY', size: '1', timestamp: '5' },
        ]));
      });
    });
    await new Promise((r) => wss?.once('listening', r));
    stream = createMarketStream({
      url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
      clobRest: { getBooks: async () => [] },
      logger: silent,
    });
    const got: MarketMessage[] = [];
    stream.on('message', (m) => got.push(m));
    stream.setTokens(['111', '222']);
    await waitFor(() => got.length >= 3, { timeoutMs: 3000, message: 'the followed messages' });
    const assets = got.map((m) => (m.type === 'price_change' ? m.changes.map((c) => c.assetId) : [m.type === 'last_trade_price' ? m.assetId : '']));
    expect(assets).toEqual([['111', '222'], ['111'], ['222']]);
    expect(got.map((m) => m.timestampMs)).toEqual([1, 2, 5]);
  });

  it('gives each followed token’s price_change entries the tag it was asked for once, when the stream began following it', async () => {
    wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    wss.on('connection', (ws) => {
      ws.on('message', () => {
        ws.send(JSON.stringify([
          { event_type: 'price_change', market: '0xm', timestamp: '1', price_changes: [entry('111', '0.4'), entry('999', '0.1'), entry('222', '0.5')] },
          { event_type: 'price_change', market: '0xm', timestamp: '2', price_changes: [entry('222', '0.51')] },
        ]));
      });
    });
    await new Promise((r) => wss?.once('listening', r));
    const asked: string[] = [];
    stream = createMarketStream({
      url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
      clobRest: { getBooks: async () => [] },
      logger: silent,
      tagOf: (token) => {
        asked.push(token);
        return { tagOf: token };
      },
    });
    const got: MarketMessage[] = [];
    stream.on('message', (m) => got.push(m));
    stream.setTokens(['111', '222']);
    await waitFor(() => got.length >= 2, { timeoutMs: 3000, message: 'the followed messages' });
    const tags = got.map((m) => (m.type === 'price_change' ? m.changes.map((c) => [c.assetId, c.tag]) : []));
    expect(tags).toEqual([[['111', { tagOf: '111' }], ['222', { tagOf: '222' }]], [['222', { tagOf: '222' }]]]);
    expect(asked).toEqual(['111', '222']);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineRole } from '../../src/runner/role.js';
import { StreamPrices } from '../../src/runner/prices-from-stream.js';
import type { MarketMessage } from '../../src/venue/clob/messages.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { fakeStream, notificationsOf, savedPrice, seedEvent, silent, subscribe, watchlistWith } from './helpers.js';
import { waitFor } from '../support/wait.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

const bba = (assetId: string, bestBid: number, bestAsk: number): MarketMessage => ({
  type: 'best_bid_ask', assetId, market: '0xm', bestBid, bestAsk, timestampMs: 1_700_000_000_000,
});

describe('StreamPrices', () => {
  it('turns tops and trades into displayed prices, only when they change', () => {
    const seen: [string, number][] = [];
    const p = new StreamPrices((record, price) => seen.push([record.token, price]));
    p.handle(bba('t', 0.4, 0.5), 1);
    p.handle(bba('t', 0.4, 0.5), 2);
    p.handle({ type: 'last_trade_price', assetId: 't', market: 'm', price: 0.3, side: 'BUY', size: 1, timestampMs: 0, transactionHash: null }, 3);
    p.handle(bba('t', 0.1, 0.9), 4); // wide spread: the last trade shows
    p.handle({
      type: 'price_change', market: 'm', timestampMs: 5, legacy: false,
      changes: [{ assetId: 't', price: 0.5, size: 1, side: 'BUY', bestBid: 0.6, bestAsk: 0.62 }],
    }, 5);
    expect(seen).toEqual([['t', 0.45], ['t', 0.3], ['t', 0.61]]);
  });
});

describe(`engine role with a market stream (${engineName})`, () => {
  it('subscribes the stream to the rules\' tokens and fires from stream messages', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, threshold: 60 });
    const fake = fakeStream();
    const role = await startEngineRole({ database: env.database, config: env.config, logger: silent, marketStream: fake.stream });
    try {
      expect(fake.tokens()).toContain(m.yesTokenId);
      fake.emit(bba(m.yesTokenId, 0.49, 0.51));
      fake.emit(bba(m.yesTokenId, 0.64, 0.66));
      await role.runner.idle();
      await waitFor(async () => { expect(await notificationsOf(env, subId)).toHaveLength(1); return true; });
      const [n] = await notificationsOf(env, subId);
      expect(n!.payload).toMatchObject({
        detectedValue: 0.65,
        polymarketSourceEvent: { event_type: 'best_bid_ask', asset_id: m.yesTokenId, best_bid: '0.64', best_ask: '0.66' },
        detectionDetails: { priceChangeTimeMs: '1700000000000' },
      });
    } finally {
      await role.stop();
    }
  });

  it('keeps a token record only while the stream carries the token: rules coming and going leave none, a late message makes none, a token followed again awaits a fresh reference', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const token = event.markets[0]!.yesTokenId;
    const fake = fakeStream();
    const role = await startEngineRole({ database: env.database, config: env.config, logger: silent, marketStream: fake.stream });
    const rule = () => subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: event.markets[0]!.id, type: 'Crossing Up', threshold: 60 });
    const kept = role.runner.records.size; // the tokens of the rules left by the test above
    try {
      for (let round = 0; round < 3; round++) {
        const id = await rule();
        await waitFor(() => { expect(fake.tokens()).toContain(token); return true; });
        fake.emit(bba(token, 0.39, 0.41));
        expect(role.runner.records.get(token)?.shown).toBe(0.4);
        await env.http.delete(`/subscription/${id}`).set(a.auth).expect((res) => expect(res.status).toBeLessThan(300));
        await waitFor(() => { expect(fake.tokens()).not.toContain(token); return true; });
        expect(role.runner.records.get(token)).toBeUndefined();
        fake.emit(bba(token, 0.69, 0.71)); // late, after the unsubscribe
        expect(role.runner.records.size).toBe(kept);
      }
      await role.runner.idle();
      await waitFor(async () => { expect(await savedPrice(env.database, token)).toBeUndefined(); return true; });

      const id = await rule();
      await waitFor(() => { expect(fake.tokens()).toContain(token); return true; });
      expect(role.runner.awaitsReference(token)).toBe(true);
      fake.emit(bba(token, 0.69, 0.71)); // only the reference: the last price seen was 0.40, while followed before
      fake.emit(bba(token, 0.49, 0.51));
      fake.emit(bba(token, 0.64, 0.66));
      await role.runner.idle();
      await waitFor(async () => { expect(await notificationsOf(env, id)).toHaveLength(1); return true; });
      const [n] = await notificationsOf(env, id);
      expect(n!.payload).toMatchObject({ detectedValue: 0.65, detectionDetails: { previousValue: 0.5 } });
    } finally {
      await role.stop();
    }
  });
});

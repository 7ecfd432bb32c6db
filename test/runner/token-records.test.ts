import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamPrices } from '../../src/runner/prices-from-stream.js';
import { TokenPriceStore } from '../../src/runner/token-prices.js';
import { TokenRecords, TokenRecord } from '../../src/runner/token-records.js';
import type { MarketMessage } from '../../src/venue/clob/messages.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { waitFor } from '../support/wait.js';
import { clock, notificationsOf, savedPrice, seedEvent, startRunner, subscribe, watchlistWith } from './helpers.js';

const bba = (assetId: string, bestBid: number, bestAsk: number): MarketMessage => ({
  type: 'best_bid_ask', assetId, market: '0xm', bestBid, bestAsk, timestampMs: 1,
});

describe('TokenRecords (one record per token on the price path)', () => {
  it('keeps a record while rules follow its token or the stream carries it, then drops it once', () => {
    const dropped: string[] = [];
    const records = new TokenRecords((r) => dropped.push(r.token));
    const a = records.follow('a');
    records.watch('a');
    expect(records.resolve('a')).toBe(a);
    a.applyTop(0.4, 0.42);
    records.unfollow('a'); // still carried
    expect(records.get('a')).toBe(a);
    records.unwatch('a');
    expect(records.get('a')).toBeUndefined();
    expect(dropped).toEqual(['a']);
    records.unwatch('a');
    records.release(a); // a dropped record is not dropped again
    expect(dropped).toEqual(['a']);
    // Followed again: a new record, nothing of the old one.
    const again = records.follow('a');
    expect(again).not.toBe(a);
    expect(again.shown).toBeUndefined();
  });

  it('forgets the book of a token the stream stops carrying, and keeps its engine state while rules follow it', () => {
    const records = new TokenRecords();
    const a = records.follow('a');
    records.watch('a');
    a.applyTop(0.4, 0.42);
    a.index = 3;
    records.unwatch('a');
    expect(records.get('a')).toBe(a);
    expect(a.shown).toBeUndefined();
    expect(a.index).toBe(3);
  });
});

describe('StreamPrices through the engine\'s records', () => {
  it('reads only the tokens with a record (a late message for a dropped token changes nothing) and keeps tokens apart', () => {
    const records = new TokenRecords();
    records.watch('a');
    records.watch('b');
    const seen: [string, number][] = [];
    const p = new StreamPrices((record, price) => seen.push([record.token, price]), undefined, records);
    p.handle(bba('a', 0.1, 0.12), 1);
    p.handle(bba('b', 0.5, 0.52), 2);
    p.handle(bba('gone', 0.5, 0.52), 3);
    p.handle({
      type: 'price_change', market: 'm', timestampMs: 4, legacy: false,
      changes: [
        { assetId: 'gone', price: 0.5, size: 1, side: 'BUY', bestBid: 0.5, bestAsk: 0.52 },
        { assetId: 'b', price: 0.6, size: 1, side: 'BUY', bestBid: 0.6, bestAsk: 0.62 },
      ],
    }, 4);
    expect(seen).toEqual([['a', 0.11], ['b', 0.51], ['b', 0.61]]);
    expect(records.get('gone')).toBeUndefined();
    expect(records.get('a')!.shown).toBe(0.11);
    expect(records.size).toBe(2);
  });

  it('reads a price_change entry through its stream tag only while that record is kept: a dropped or foreign record falls back to the token\'s own', () => {
    const records = new TokenRecords();
    const old = records.follow('a');
    const seen: [TokenRecord, number][] = [];
    const p = new StreamPrices((record, price) => seen.push([record, price]), undefined, records);
    const change = (tag: unknown, bid: number): MarketMessage => ({
      type: 'price_change', market: 'm', timestampMs: 1, legacy: false,
      changes: [{ assetId: 'a', price: bid, size: 1, side: 'BUY', bestBid: bid, bestAsk: bid + 0.02, tag }],
    });
    const readBy = (r: TokenRecord) => (r === old ? 'old' : r === current ? 'current' : r === foreign ? 'foreign' : 'other');
    let current: TokenRecord | undefined;
    let foreign: TokenRecord | undefined;
    p.handle(change(old, 0.4), 1);
    expect(seen.map(([r, price]) => [r === old, price])).toEqual([[true, 0.41]]);
    // The record is dropped and the token followed again: the stale tag must not revive the old one.
    records.unfollow('a');
    current = records.follow('a');
    p.handle(change(old, 0.5), 2);
    // A record of other records, and a tag that is no record at all, are not taken either.
    foreign = new TokenRecords().follow('a');
    p.handle(change(foreign, 0.6), 3);
    p.handle(change('a', 0.7), 4);
    expect(seen.slice(1).map(([r, price]) => [readBy(r), price])).toEqual([['current', 0.51], ['current', 0.61], ['current', 0.71]]);
    expect(old.shown).toBe(0.41);
    expect(foreign.shown).toBeUndefined();
    // No record kept for the token: the message changes nothing, whatever its tag.
    records.unfollow('a');
    p.handle(change(current, 0.8), 5);
    expect(seen).toHaveLength(4);
  });
});

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

describe(`TokenPriceStore with records (${engineName})`, () => {
  it('saves each token once per batch: of a note and a removal the later wins, also across a dropped record and its successor', async () => {
    const prices = new TokenPriceStore(env.database);
    const old = new TokenRecord('a');
    prices.set(old, 0.4);
    prices.set(old, 0.45); // queued once, the latest price
    prices.remove('a');
    const again = new TokenRecord('a'); // followed again: a new record
    prices.set(again, 0.5);
    const b = new TokenRecord('b');
    prices.set(b, 0.2);
    prices.remove('b');
    prices.remove('c');
    expect(prices.hasChanges).toBe(true);
    expect(prices.takeChanged().sort()).toEqual([['a', 0.5], ['b', null], ['c', null]]);
    expect(prices.hasChanges).toBe(false);
    // Taken slots are queued again by their next price.
    prices.set(old, 0.6);
    expect(prices.takeChanged()).toEqual([['a', 0.6]]);
    // Written as taken: one row per token, even from two slots of one token in one batch.
    prices.set(old, 0.61);
    prices.set(again, 0.62);
    await prices.saveIn(env.database.db, prices.takeChanged());
    expect(await savedPrice(env.database, 'a')).toBe(0.62);
    prices.remove('a');
    await prices.saveIn(env.database.db, prices.takeChanged());
    expect(await savedPrice(env.database, 'a')).toBeUndefined();
  });
});

describe(`engine runner: token records over a long run (${engineName})`, () => {
  it('drops the records of tokens no rule follows any more, and a token followed again awaits a fresh reference', async () => {
    const event = await seedEvent(env.database, { markets: 6 });
    const a = await env.newAccount();
    const wl = await watchlistWith(env, a, [event]);
    const c = clock();
    const runner = startRunner(env, c);
    await runner.start();
    const record = (token: string): TokenRecord | undefined => runner.records.get(token);
    try {
      // Churn: rules come and go on six markets, three times over, with prices between.
      for (let round = 0; round < 3; round++) {
        for (const m of event.markets) {
          const id = await subscribe(env, a, wl, { eventId: event.id, marketId: m.id, type: 'Crossing Up', threshold: 50 });
          await waitFor(() => { expect(record(m.yesTokenId)?.followed).toBe(true); return true; });
          runner.onPrice(m.yesTokenId, 0.3 + round / 10, c.advance(1000));
          await env.http.delete(`/subscription/${id}`).set(a.auth).expect((res) => expect(res.status).toBeLessThan(300));
          await waitFor(() => { expect(record(m.yesTokenId)).toBeUndefined(); return true; });
        }
      }
      expect(runner.records.size).toBe(0);
      expect(runner.tokens()).toEqual([]);

      // Followed again after it was forgotten: its next price only sets the reference.
      const m = event.markets[0]!;
      const s = await subscribe(env, a, wl, { eventId: event.id, marketId: m.id, type: 'Crossing Up', threshold: 50 });
      await waitFor(() => { expect(runner.awaitsReference(m.yesTokenId)).toBe(true); return true; });
      runner.onPrice(m.yesTokenId, 0.6, c.advance(1000));
      expect(runner.awaitsReference(m.yesTokenId)).toBe(false);
      await runner.idle();
      expect(await notificationsOf(env, s)).toHaveLength(0);
      runner.onPrice(m.yesTokenId, 0.45, c.advance(1000));
      runner.onPrice(m.yesTokenId, 0.55, c.advance(1000));
      await runner.idle();
      expect(await notificationsOf(env, s)).toHaveLength(1);
      expect(runner.records.size).toBe(1);
    } finally {
      await runner.stop();
    }
    // Saved prices: the followed token's last one; the others' rows went with their rules.
    expect(await savedPrice(env.database, event.markets[0]!.yesTokenId)).toBe(0.55);
    for (const m of event.markets.slice(1)) expect(await savedPrice(env.database, m.yesTokenId)).toBeUndefined();
  });

  it('a price of a token no rule follows leaves no record behind', async () => {
    const c = clock();
    const runner = startRunner(env, c);
    await runner.start();
    try {
      const followed = runner.records.size; // the rules left by the test above
      for (let i = 0; i < 50; i++) runner.onPrice(`stray-${i}`, 0.5, c.advance(1000));
      expect(runner.records.size).toBe(followed);
    } finally {
      await runner.stop();
    }
  });
});

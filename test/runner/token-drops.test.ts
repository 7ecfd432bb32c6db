import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogMarkets } from '../../src/db/schema/index.js';
import { startEngineRole } from '../../src/runner/role.js';
import type { MarketMessage } from '../../src/venue/clob/messages.js';
import { engineName } from '../support/db.js';
import type { SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { waitFor } from '../support/wait.js';
import { clock, fakeStream, notificationsOf, savedPrice, savedSamples, seedEvent, silent, startRunner, subscribe, watchlistWith } from './helpers.js';

// What a token's record leaves behind when it is dropped: its open minute, its saved price, its
// dense index (token-records.ts, docs/decisions.md "One token record per price").

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

const MINUTE = 60_000;
type SeededMarket = SeededEvent['markets'][number];

const bba = (assetId: string, bestBid: number, bestAsk: number): MarketMessage => ({
  type: 'best_bid_ask', assetId, market: '0xm', bestBid, bestAsk, timestampMs: 1_700_000_000_000,
});

const samplesOf = (token: string) => savedSamples(env.database, token);

async function largeTrade(a: TestAccount, watchlistId: string, eventId: string, marketId: string): Promise<string> {
  const res = await env.http.post('/subscriptions').set(a.auth).send({
    watchlistId, subscriptionScope: 'Market', eventId, marketId,
    subscriptionTypeConfig: { type: 'Large Trade', config: { params: { min_usd: 1000 } } },
    triggerType: 'Recurring', channels: [{ type: 'In App' }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.subscription.subscriptionId as string;
}

const unsubscribe = (a: TestAccount, id: string) =>
  env.http.delete(`/subscription/${id}`).set(a.auth).expect((res) => expect(res.status).toBeLessThan(300));

describe(`engine runner: a dropped token record (${engineName})`, () => {
  // First in the file: the carried token's dense index must be the last one a start frees.
  it('a stop and start keeps the dense index of a record the stream still carries: its prices never reach another token\'s rules', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const carried = `carried-${event.id}`;
    const c = clock();
    const runner = startRunner(env, c);
    runner.records.watch(carried); // the stream carries it; no rule follows it
    await runner.start();
    try {
      runner.onPrice(carried, 0.3, c.advance(1000));
      await runner.stop();
      await runner.start(); // its saved price is of a token no rule follows: removed
      const id = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, type: 'Crossing Up', threshold: 50 });
      await waitFor(() => { expect(runner.records.get(m.yesTokenId)?.followed).toBe(true); return true; });
      runner.onPrice(m.yesTokenId, 0.4, c.advance(1000)); // the reference
      runner.onPrice(carried, 0.6, c.advance(1000));
      await runner.idle();
      expect(await notificationsOf(env, id)).toHaveLength(0);
      // The rule itself still works.
      runner.onPrice(m.yesTokenId, 0.6, c.advance(1000));
      await runner.idle();
      expect(await notificationsOf(env, id)).toHaveLength(1);
    } finally {
      await runner.stop();
    }
  });

  it('a token dropped and followed again within a minute saves that minute with the newer record\'s price', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const rule = () => subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, type: 'Crossing Up', threshold: 90 });
    const first = await rule();
    const c = clock(Date.UTC(2026, 0, 3, 10, 0, 5));
    const runner = startRunner(env, c);
    await runner.start();
    try {
      runner.onPrice(m.yesTokenId, 0.4, c.advance(1000));
      await unsubscribe(a, first);
      await waitFor(() => { expect(runner.records.get(m.yesTokenId)).toBeUndefined(); return true; });
      await rule();
      await waitFor(() => { expect(runner.records.get(m.yesTokenId)?.followed).toBe(true); return true; });
      runner.onPrice(m.yesTokenId, 0.55, c.advance(1000)); // still 10:00
      runner.onPrice(m.yesTokenId, 0.56, c.advance(MINUTE)); // 10:01 ends 10:00
      await runner.idle();
    } finally {
      await runner.stop();
    }
    expect(await samplesOf(m.yesTokenId)).toEqual([
      { minute: '2026-01-03T10:00:00.000Z', price: 0.55 },
      { minute: '2026-01-03T10:01:00.000Z', price: 0.56 },
    ]);
  });

  it('a takeover that sets the reference of a token whose rule went meanwhile keeps no record of it', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const token = event.markets[0]!.yesTokenId;
    const id = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: event.markets[0]!.id, type: 'Crossing Up', threshold: 50 });
    const c = clock();
    const runner = startRunner(env, c);
    await runner.start();
    try {
      const kept = runner.records.size;
      await unsubscribe(a, id);
      await waitFor(() => { expect(runner.records.get(token)).toBeUndefined(); return true; });
      // What the role does once its awaits (saved bands, saved prices) are over.
      runner.adoptReference(token, 0.3);
      runner.awaitReference([token]);
      expect(runner.records.get(token)).toBeUndefined();
      expect(runner.records.size).toBe(kept - 1);
      expect(runner.awaitsReference(token)).toBe(false);
    } finally {
      await runner.stop();
    }
  });
});

describe(`engine runner: one token, the yes-token of two markets (${engineName})`, () => {
  it('evaluates both markets\' rules on its prices and keeps its record and saved price until the last of them goes', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 2 });
    const [m0, m1] = event.markets as [SeededMarket, SeededMarket];
    const token = m0.yesTokenId;
    await env.database.db.update(catalogMarkets).set({ yesTokenId: token, clobTokenIds: [token, `${token}-no`] }).where(eq(catalogMarkets.id, m1.id));
    const wl = await watchlistWith(env, a, [event]);
    const rule = (m: SeededMarket) => subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, type: 'Crossing Up', threshold: 50 });
    const first = await rule(m0);
    const second = await rule(m1);
    const c = clock();
    const runner = startRunner(env, c);
    await runner.start();
    try {
      expect(runner.tokens().filter((t) => t === token)).toHaveLength(1);
      runner.onPrice(token, 0.4, c.advance(1000));
      runner.onPrice(token, 0.6, c.advance(1000));
      await runner.idle();
      expect((await notificationsOf(env, first)).map((n) => n.payload.marketId)).toEqual([m0.id]);
      expect((await notificationsOf(env, second)).map((n) => n.payload.marketId)).toEqual([m1.id]);
      await waitFor(async () => { expect(await savedPrice(env.database, token)).toBe(0.6); return true; });

      const record = runner.records.get(token);
      const rules = runner.size;
      await unsubscribe(a, first);
      await waitFor(() => { expect(runner.size).toBe(rules - 1); return true; });
      expect(runner.records.get(token)).toBe(record);
      expect(record?.followed).toBe(true);
      await runner.idle();
      expect(await savedPrice(env.database, token)).toBe(0.6);

      await unsubscribe(a, second);
      await waitFor(() => { expect(runner.records.get(token)).toBeUndefined(); return true; });
      await waitFor(async () => { expect(await savedPrice(env.database, token)).toBeUndefined(); return true; });
    } finally {
      await runner.stop();
    }
  });
});

describe(`engine role: a token only trade rules follow (${engineName})`, () => {
  it('keeps its record, saved price and samples while followed; its rule deleted, its saved price goes and never becomes a later price rule\'s reference', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const token = m.yesTokenId;
    const trades = await largeTrade(a, wl, event.id, m.id);
    const fake = fakeStream();
    let role = await startEngineRole({ database: env.database, config: env.config, logger: silent, marketStream: fake.stream });
    try {
      expect(fake.tokens()).toContain(token);
      expect(role.runner.records.get(token)).toMatchObject({ followed: false, watched: true });
      fake.emit(bba(token, 0.29, 0.31));
      expect(role.runner.records.get(token)?.shown).toBe(0.3);
      await waitFor(async () => { expect(await savedPrice(env.database, token)).toBe(0.3); return true; });

      await unsubscribe(a, trades);
      await waitFor(() => { expect(fake.tokens()).not.toContain(token); return true; });
      expect(role.runner.records.get(token)).toBeUndefined();
      await waitFor(async () => { expect(await savedPrice(env.database, token)).toBeUndefined(); return true; });
      // Its history stays: the minute it was carried in.
      await waitFor(async () => { expect((await samplesOf(token)).map((s) => s.price)).toEqual([0.3]); return true; });

      // A price rule created later, then a restart before the token's first price: no reference
      // from the trade rule's time, so the first price only sets it.
      const crossing = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, type: 'Crossing Up', threshold: 50 });
      await waitFor(() => { expect(fake.tokens()).toContain(token); return true; });
      await role.stop();
      role = await startEngineRole({ database: env.database, config: env.config, logger: silent, marketStream: fake.stream });
      fake.emit(bba(token, 0.54, 0.56));
      await role.runner.idle();
      expect(await notificationsOf(env, crossing)).toHaveLength(0);
      fake.emit(bba(token, 0.44, 0.46));
      fake.emit(bba(token, 0.54, 0.56));
      await waitFor(async () => { expect(await notificationsOf(env, crossing)).toHaveLength(1); return true; });
    } finally {
      await role.stop();
    }
  });
});

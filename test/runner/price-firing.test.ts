import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { tokenPrices } from '../../src/db/schema/index.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import {
  clock, deliveriesOf, getSub, notificationsOf, seedEvent, silent, startRunner, subscribe, watchlistWith,
} from './helpers.js';
import { createEngineRunner, type EngineRunner } from '../../src/runner/engine-runner.js';
import { writeFiring } from '../../src/runner/fire.js';
import { waitFor } from '../support/wait.js';

let env: TestEnv;
const runners: EngineRunner[] = [];
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  for (const r of runners) await r.stop();
  await env?.close();
});

async function started(c = clock()) {
  const runner = startRunner(env, c);
  runners.push(runner);
  await runner.start();
  return { runner, c };
}

describe(`engine runner: price firings (${engineName})`, () => {
  it('a Market Crossing Up 60 fires once on 0.5 → 0.65 with the spec payload and a PENDING delivery', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { title: 'Rain in Paris', markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const market = event.markets[0]!;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: market.id, threshold: 60 });
    const { runner, c } = await started();
    expect(runner.tokens()).toContain(market.yesTokenId);

    runner.onPrice(market.yesTokenId, 0.5, c.now());
    c.advance(1000);
    const source = { event_type: 'price_change', market: '0xabc', timestamp: '123' };
    runner.onPrice(market.yesTokenId, 0.65, c.now() - 5, source, 123);
    await runner.idle();

    const rows = await notificationsOf(env, subId);
    expect(rows).toHaveLength(1);
    const n = rows[0]!;
    expect(n.type).toBe('price_notification');
    expect(n.accountId).toBe(a.userId);
    expect(n.dedupeKey).toBe(`${subId}:${market.id}:123`); // the venue's timestamp of the move
    expect(n.payload).toMatchObject({
      type: 'price_notification',
      userId: a.userId,
      createdAt: expect.any(String),
      subscriptionId: subId,
      watchlistId: wl,
      watchlistName: expect.any(String),
      eventId: event.id,
      eventTitle: 'Rain in Paris',
      marketId: market.id,
      marketQuestion: market.question,
      polymarketSlug: event.slug,
      clobTokenId: market.yesTokenId,
      subscriptionScope: 'Market',
      subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 60 } } },
      triggerType: 'Recurring',
      detectedValue: 0.65,
      detectedAt: new Date(c.now()).toISOString(),
      detectedAtMs: c.now(),
      sentFromPolymarketAtMs: c.now() - 5,
      channels: [{ type: 'In App' }],
      detectionDetails: { detectedValue: 0.65, detectedTimeMs: c.now(), priceChangeTimeMs: '123' },
      polymarketSourceEvent: source,
    });
    const ds = await deliveriesOf(env, n.id);
    expect(ds).toHaveLength(1);
    expect(ds[0]).toMatchObject({ status: 'PENDING', position: 0, channelType: 'In App' });

    const sub = await getSub(env, a, subId);
    expect(sub.triggerCount).toBe(1);
    expect(sub.status).toEqual({ enabled: true, reason: 'Triggered' });
    expect(sub.lastTriggeredAt).toBe(new Date(c.now()).toISOString());
    expect(sub.channels[0]!.status).toBe('PENDING');

    // Within the Recurring 30m pause, a new crossing does not fire.
    runner.onPrice(market.yesTokenId, 0.5, c.advance(1000));
    runner.onPrice(market.yesTokenId, 0.7, c.advance(1000));
    await runner.idle();
    expect(await notificationsOf(env, subId)).toHaveLength(1);
  });

  it('One Time disables the subscription after its first firing', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, triggerType: 'One Time' });
    const { runner, c } = await started();
    runner.onPrice(m.yesTokenId, 0.5, c.now());
    runner.onPrice(m.yesTokenId, 0.65, c.advance(10));
    runner.onPrice(m.yesTokenId, 0.5, c.advance(10));
    runner.onPrice(m.yesTokenId, 0.65, c.advance(10));
    await runner.idle();
    expect(await notificationsOf(env, subId)).toHaveLength(1);
    const sub = await getSub(env, a, subId);
    expect(sub.status).toEqual({ enabled: false, reason: 'Triggered' });
    expect(sub.triggerCount).toBe(1);
  });

  it('pause stops firing once the change feed delivers; restart re-arms', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, triggerInterval: '0m' });
    const { runner, c } = await started();
    expect(runner.tokens()).toContain(m.yesTokenId);
    await env.http.post(`/subscription/${subId}/pause`).set(a.auth).expect(200);
    await waitFor(() => { expect(runner.tokens()).not.toContain(m.yesTokenId); return true; });
    runner.onPrice(m.yesTokenId, 0.5, c.now());
    runner.onPrice(m.yesTokenId, 0.65, c.advance(10));
    await runner.idle();
    expect(await notificationsOf(env, subId)).toHaveLength(0);

    await env.http.post(`/subscription/${subId}/restart`).set(a.auth).expect(200);
    await waitFor(() => { expect(runner.tokens()).toContain(m.yesTokenId); return true; });
    runner.onPrice(m.yesTokenId, 0.5, c.advance(10));
    runner.onPrice(m.yesTokenId, 0.65, c.advance(10));
    await runner.idle();
    expect(await notificationsOf(env, subId)).toHaveLength(1);
    expect((await getSub(env, a, subId)).status).toEqual({ enabled: true, reason: 'Triggered' });
  });

  it('rules created while the engine runs, several at once, are loaded from their change notices and fire on the next crossing', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { title: 'Harbour traffic', markets: 5 });
    const wl = await watchlistWith(env, a, [event]);
    const { runner, c } = await started();
    const [tradeMarket, ...priceMarkets] = event.markets;
    // Created together: their notices can arrive while a reload runs and be loaded by one.
    const [tradeSub, ...priceSubs] = await Promise.all([
      env.http
        .post('/subscriptions')
        .set(a.auth)
        .send({
          watchlistId: wl,
          subscriptionScope: 'Market',
          eventId: event.id,
          marketId: tradeMarket!.id,
          subscriptionTypeConfig: { type: 'Large Trade', config: { params: { min_usd: 1000 } } },
          triggerType: 'Recurring',
          channels: [{ type: 'In App' }],
        })
        .expect(201)
        .then((res) => res.body.subscription.subscriptionId as string),
      ...priceMarkets.map((m) => subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, threshold: 60 })),
    ]);
    await waitFor(() => {
      for (const m of event.markets) expect(runner.tokens()).toContain(m.yesTokenId);
      return true;
    });
    for (const m of priceMarkets) runner.onPrice(m!.yesTokenId, 0.5, c.now());
    c.advance(100);
    for (const m of priceMarkets) runner.onPrice(m!.yesTokenId, 0.65, c.now());
    const at = c.now();
    runner.onTrade({ type: 'last_trade_price', assetId: tradeMarket!.yesTokenId, market: '0xm', price: 0.5, side: 'BUY', size: 4000, timestampMs: at, transactionHash: null }, at);
    await runner.idle();
    for (const [i, subId] of priceSubs.entries()) {
      const rows = await notificationsOf(env, subId);
      expect(rows.map((r) => [r.payload.marketId, r.payload.detectedValue])).toEqual([[priceMarkets[i]!.id, 0.65]]);
    }
    expect((await notificationsOf(env, tradeSub!)).map((r) => r.payload.marketId)).toEqual([tradeMarket!.id]);
  });

  it('rules created one after another in a burst are reloaded together and all fire on the next price; a create after a quiet spell is loaded at once', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { title: 'Ferry delays', markets: 6 });
    const wl = await watchlistWith(env, a, [event]);
    const c = clock();
    // A window long enough that the burst below fits in it on a loaded machine.
    const runner = createEngineRunner({ database: env.database, logger: silent, now: c.now, flushIntervalMs: 60_000, reloadBatchMs: 2_000 });
    runners.push(runner);
    await runner.start();
    const following: string[][] = [];
    runner.on('following', (tokens) => following.push(tokens));
    const [first, ...burst] = event.markets;

    const startedAt = Date.now();
    const firstSub = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: first!.id, threshold: 60 });
    await waitFor(() => { expect(runner.tokens()).toContain(first!.yesTokenId); return true; });
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    const burstSubs: string[] = [];
    for (const m of burst) burstSubs.push(await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, threshold: 60 }));
    await runner.idle();
    // One reload for the first create, one for the whole burst.
    expect(following).toEqual([[first!.yesTokenId], burst.map((m) => m.yesTokenId)]);

    for (const m of event.markets) runner.onPrice(m.yesTokenId, 0.5, c.now());
    c.advance(100);
    for (const m of event.markets) runner.onPrice(m.yesTokenId, 0.65, c.now());
    await runner.idle();
    for (const [i, subId] of [firstSub, ...burstSubs].entries()) {
      const rows = await notificationsOf(env, subId);
      expect(rows.map((r) => [r.payload.marketId, r.payload.detectedValue])).toEqual([[event.markets[i]!.id, 0.65]]);
    }
  });

  it('Watchlist scope fires for each market of the watchlist', async () => {
    const a = await env.newAccount();
    const e1 = await seedEvent(env.database, { markets: 2 });
    const e2 = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [e1, e2]);
    const subId = await subscribe(env, a, wl, { scope: 'Watchlist', type: 'Crossing Down', threshold: 40 });
    const { runner, c } = await started();
    const markets = [...e1.markets, ...e2.markets];
    for (const m of markets) runner.onPrice(m.yesTokenId, 0.5, c.now());
    c.advance(100);
    for (const m of markets) runner.onPrice(m.yesTokenId, 0.3, c.now());
    await runner.idle();
    const rows = await notificationsOf(env, subId);
    expect(rows.map((r) => r.payload.marketId).sort()).toEqual(markets.map((m) => m.id).sort());
    expect((await getSub(env, a, subId)).triggerCount).toBe(3);
  });

  it('Event scope fires for every market of the event', async () => {
    const a = await env.newAccount();
    const e = await seedEvent(env.database, { markets: 2 });
    const wl = await watchlistWith(env, a, [e]);
    const subId = await subscribe(env, a, wl, { scope: 'Event', eventId: e.id, type: 'Greater Than', threshold: 70 });
    const { runner, c } = await started();
    for (const m of e.markets) runner.onPrice(m.yesTokenId, 0.8, c.now());
    await runner.idle();
    expect(await notificationsOf(env, subId)).toHaveLength(2);
  });

  it('replaying the same firing writes no duplicate', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id });
    const firing = {
      ruleId: 0, subscriptionId: subId, marketId: m.id, token: m.yesTokenId, ruleType: 'Crossing Up' as const,
      previousPrice: 0.5, price: 0.65, atMs: 1_700_000_000_000,
    };
    expect(await writeFiring(env.database.db, firing, { receivedAtMs: firing.atMs })).toBe('written');
    expect(await writeFiring(env.database.db, firing, { receivedAtMs: firing.atMs })).toBe('duplicate');
    const rows = await notificationsOf(env, subId);
    expect(rows).toHaveLength(1);
    expect(await deliveriesOf(env, rows[0]!.id)).toHaveLength(1);
    expect((await getSub(env, a, subId)).triggerCount).toBe(1);
  });

  it('a crossing made while the runner was down is found at start from token_prices and a new price', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id });
    const first = await started();
    first.runner.onPrice(m.yesTokenId, 0.5, first.c.now());
    await first.runner.stop();
    const saved = await env.database.db.select().from(tokenPrices);
    expect(saved.find((p) => p.tokenId === m.yesTokenId)?.price).toBe(0.5);

    const { runner, c } = await started();
    runner.onPrice(m.yesTokenId, 0.65, c.advance(60_000));
    await runner.idle();
    expect(await notificationsOf(env, subId)).toHaveLength(1);
  });

  it('Crossing Step names the levels crossed; a deleted subscription is skipped', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, type: 'Crossing Step', threshold: 10, triggerInterval: '0m' });
    const { runner, c } = await started();
    runner.onPrice(m.yesTokenId, 0.25, c.now());
    runner.onPrice(m.yesTokenId, 0.52, c.advance(10));
    await runner.idle();
    const [n] = await notificationsOf(env, subId);
    expect(n!.payload).toMatchObject({
      subscriptionTypeConfig: { type: 'Crossing Step', config: { params: { threshold_percent: 10 } } },
      detectionDetails: { levels: [0.3, 0.4, 0.5], detectedValue: 0.52 },
    });

    const outcomes: string[] = [];
    runner.on('fired', (_f, outcome) => outcomes.push(outcome));
    await env.database.rows(sql`delete from subscriptions where id = ${subId}`);
    runner.onPrice(m.yesTokenId, 0.65, c.advance(10));
    await runner.idle();
    expect(outcomes).toEqual(['skipped']);
  });

  it('two engines that both own a token for a moment and see the same venue message write one notification', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const market = event.markets[0]!;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: market.id, threshold: 60 });
    const one = await started(clock());
    const other = await started(clock(Date.UTC(2026, 0, 1) + 7)); // detects a few ms apart
    const source = { event_type: 'price_change', market: '0xdef', timestamp: '1767225600500' };
    for (const { runner, c } of [one, other]) runner.onPrice(market.yesTokenId, 0.5, c.now());
    for (const { runner, c } of [one, other]) runner.onPrice(market.yesTokenId, 0.65, c.now(), source, 1767225600500);
    await Promise.all([one.runner.idle(), other.runner.idle()]);
    const rows = await notificationsOf(env, subId);
    expect(rows).toHaveLength(1);
    expect((await getSub(env, a, subId)).triggerCount).toBe(1);
  });
});

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { catalogEvents, catalogMarkets } from '../../src/db/schema/index.js';
import { PriceNotification } from '../../src/http/webhook-payloads.js';
import { createEngineRunner } from '../../src/runner/engine-runner.js';
import { startEngineRole, type EngineRole } from '../../src/runner/role.js';
import type { LastTradeMessage } from '../../src/venue/clob/messages.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { waitFor } from '../support/wait.js';
import { postJson, startSimulator } from '../venue/support.js';
import { clock, getSub, notificationsOf, savedPrice, silent, startRunner, watchlistWith } from './helpers.js';

// Large Trade and Volume Spike through the venue simulator: trades made with its control endpoint
// reach the engine role over the market WebSocket, as the venue's do.

let env: TestEnv;
let sim: Awaited<ReturnType<typeof startSimulator>>;
const roles: EngineRole[] = [];
beforeAll(async () => {
  env = await createTestEnv();
  sim = await startSimulator({ eventCount: 5 });
});
// One engine at a time: two on one database would both evaluate the trades.
afterEach(async () => {
  for (const role of roles.splice(0)) await role.stop();
});
afterAll(async () => {
  await sim?.sim.stop();
  await env?.close();
});

interface Market {
  id: string;
  yesTokenId: string;
}

let events = 0;
/** A new simulator event, copied into the catalog as the sync would, with its markets' volume24hr. */
async function newEvent(markets = 1, volume24hr = 0): Promise<{ id: string; markets: Market[] }> {
  const n = ++events;
  const res = await postJson(`${sim.urls.controlUrl}/events`, {
    title: `Trades ${n} ${engineName}`,
    markets: Array.from({ length: markets }, (_, i) => ({ question: `Will trade ${n}.${i} happen?`, price: 0.5 })),
  });
  expect(res.status).toBe(201);
  const e = sim.sim.state.events.get(res.json.event.id)!;
  const ms = sim.sim.state.marketsOf(e);
  for (const m of ms) m.volume24hr = volume24hr;
  await env.database.db.insert(catalogEvents).values({ id: e.id, slug: e.slug, title: e.title, volume24hr: volume24hr * ms.length, closed: false });
  await env.database.db.insert(catalogMarkets).values(ms.map((m, position) => ({
    id: m.id, eventId: e.id, position, question: m.question, outcomes: ['Yes', 'No'], outcomePrices: [0.5, 0.5],
    clobTokenIds: [...m.tokenIds], yesTokenId: m.tokenIds[0], volume24hr,
  })));
  return { id: e.id, markets: ms.map((m) => ({ id: m.id, yesTokenId: m.tokenIds[0] })) };
}

interface Rule {
  type: 'Large Trade' | 'Volume Spike';
  params: Record<string, unknown>;
  scope?: 'Market' | 'Event' | 'Watchlist';
  triggerType?: 'One Time' | 'Recurring';
  triggerInterval?: string;
}

async function rule(a: TestAccount, watchlistId: string, eventId: string, marketId: string, r: Rule): Promise<string> {
  const scope = r.scope ?? 'Market';
  const res = await env.http.post('/subscriptions').set(a.auth).send({
    watchlistId,
    subscriptionScope: scope,
    ...(scope !== 'Watchlist' ? { eventId } : {}),
    ...(scope === 'Market' ? { marketId } : {}),
    subscriptionTypeConfig: { type: r.type, config: { params: r.params } },
    triggerType: r.triggerType ?? 'Recurring',
    ...((r.triggerType ?? 'Recurring') === 'Recurring' ? { triggerInterval: r.triggerInterval ?? '0m' } : {}),
    channels: [{ type: 'In App' }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.subscription.subscriptionId as string;
}

/** The engine role on the simulator's feed, once it follows these tokens (their books arrived). */
async function engine(...tokens: string[]): Promise<EngineRole> {
  const role = await startEngineRole({ database: env.database, config: env.config, logger: silent, clobWsUrl: sim.urls.clobWsUrl, clobUrl: sim.urls.clobUrl });
  roles.push(role);
  for (const token of tokens) {
    await waitFor(async () => (await savedPrice(env.database, token)) !== undefined, { message: 'the engine to follow the token' });
  }
  return role;
}

async function trade(marketId: string, price: number, size: number, side: 'BUY' | 'SELL' = 'BUY') {
  const res = await postJson(`${sim.urls.controlUrl}/markets/${marketId}/trade`, { price, size, side });
  expect(res.status).toBe(200);
}

const payloads = async (subscriptionId: string) => (await notificationsOf(env, subscriptionId)).map((n) => n.payload as any);

/**
 * A Recurring `Large Trade` of $0.01 on the market fires on every trade: once it counted `n`, the
 * engine has handled the trades before, so what did not fire by then never will. (Waiting for it
 * after each trade also keeps trades in distinct milliseconds: a firing is named by its trade's
 * timestamp.)
 */
function metronome(subscriptionId: string) {
  let beats = 0;
  return async () => {
    beats++;
    await waitFor(async () => (await notificationsOf(env, subscriptionId)).length >= beats, { message: `trade ${beats} to be handled` });
  };
}

describe(`Large Trade through the simulator (${engineName})`, () => {
  it('a $24,999 trade does not fire a $25,000 One Time rule, $25,000 does, once, with the trade in detectionDetails', async () => {
    const a = await env.newAccount();
    const event = await newEvent();
    const m = event.markets[0]!;
    const wl = await watchlistWith(env, a, [event as any]);
    const big = await rule(a, wl, event.id, m.id, { type: 'Large Trade', params: { min_usd: 25_000 }, triggerType: 'One Time' });
    const beat = metronome(await rule(a, wl, event.id, m.id, { type: 'Large Trade', params: { min_usd: 0.01 } }));
    await engine(m.yesTokenId);

    await trade(m.id, 0.5, 49_998); // $24,999
    await beat();
    expect(await payloads(big)).toEqual([]);
    await trade(m.id, 0.5, 50_000, 'SELL'); // $25,000
    await beat();
    await trade(m.id, 0.6, 100_000); // $60,000: the One Time rule is done
    await beat();

    const fired = await payloads(big);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({
      type: 'price_notification',
      subscriptionId: big,
      marketId: m.id,
      clobTokenId: m.yesTokenId,
      subscriptionTypeConfig: { type: 'Large Trade', config: { params: { min_usd: 25_000 } } },
      triggerType: 'One Time',
      detectedValue: 0.5,
      detectionDetails: {
        detectedValue: 0.5,
        tradePrice: 0.5,
        tradeSize: 50_000,
        tradeSide: 'SELL',
        tradeUsd: 25_000,
        transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      },
      polymarketSourceEvent: { event_type: 'last_trade_price', asset_id: m.yesTokenId, price: '0.5', side: 'SELL', size: '50000' },
    });
    expect(fired[0].detectionDetails.transactionHash).toBe(fired[0].polymarketSourceEvent.transaction_hash);
    // The payload the webhook documentation (OpenAPI `webhooks`) describes.
    PriceNotification.parse(fired[0]);
    expect(await getSub(env, a, big)).toMatchObject({ status: { enabled: false, reason: 'Triggered' }, triggerCount: 1 });
  });

  it('a side filter fires on trades of that side only; Recurring fires on each', async () => {
    const a = await env.newAccount();
    const event = await newEvent();
    const m = event.markets[0]!;
    const wl = await watchlistWith(env, a, [event as any]);
    const sells = await rule(a, wl, event.id, m.id, { type: 'Large Trade', params: { min_usd: 1000, side: 'SELL' } });
    const beat = metronome(await rule(a, wl, event.id, m.id, { type: 'Large Trade', params: { min_usd: 0.01 } }));
    await engine(m.yesTokenId);

    await trade(m.id, 0.4, 10_000, 'BUY'); // $4,000 bought
    await beat();
    await trade(m.id, 0.4, 2_500, 'SELL'); // $1,000 sold
    await beat();
    await trade(m.id, 0.4, 2_499, 'SELL'); // $999.60 sold
    await beat();
    await trade(m.id, 0.45, 5_000, 'SELL'); // $2,250 sold
    await beat();

    const fired = await payloads(sells);
    expect(fired.map((p) => [p.detectionDetails.tradeSide, p.detectionDetails.tradeUsd])).toEqual([['SELL', 1000], ['SELL', 2250]]);
    expect(await getSub(env, a, sells)).toMatchObject({ status: { enabled: true, reason: 'Triggered' }, triggerCount: 2 });
  });

  it('a Watchlist rule covers each market of the watchlist, an Event rule each market of the event', async () => {
    const a = await env.newAccount();
    const event = await newEvent(2);
    const [m1, m2] = event.markets as [Market, Market];
    const wl = await watchlistWith(env, a, [event as any]);
    const listed = await rule(a, wl, event.id, m1.id, { type: 'Large Trade', params: { min_usd: 500 }, scope: 'Watchlist' });
    const evented = await rule(a, wl, event.id, m1.id, { type: 'Large Trade', params: { min_usd: 600 }, scope: 'Event' });
    await engine(m1.yesTokenId, m2.yesTokenId);

    await trade(m1.id, 0.5, 1000);
    await trade(m2.id, 0.7, 1000);
    await waitFor(async () => (await payloads(listed)).length === 2, { message: 'a firing on each market' });
    expect((await payloads(listed)).map((p) => [p.marketId, p.detectionDetails.tradeUsd]).sort()).toEqual([[m1.id, 500], [m2.id, 700]].sort());
    await waitFor(async () => (await payloads(evented)).length === 1, { message: 'the Event rule to fire on the $700 trade' });
    expect((await payloads(evented)).map((p) => [p.marketId, p.subscriptionScope])).toEqual([[m2.id, 'Event']]);
  });

  it('a paused rule never fires; restarted, it fires on the next large trade', async () => {
    const a = await env.newAccount();
    const event = await newEvent();
    const m = event.markets[0]!;
    const wl = await watchlistWith(env, a, [event as any]);
    const sub = await rule(a, wl, event.id, m.id, { type: 'Large Trade', params: { min_usd: 100 } });
    const beat = metronome(await rule(a, wl, event.id, m.id, { type: 'Large Trade', params: { min_usd: 0.01 } }));
    await engine(m.yesTokenId);
    // Whether the engine has dropped the rule yet or not, the firing write skips a paused subscription.
    await env.http.post(`/subscription/${sub}/pause`).set(a.auth).expect(200);
    await trade(m.id, 0.5, 1000);
    await beat();
    expect(await payloads(sub)).toEqual([]);
    await env.http.post(`/subscription/${sub}/restart`).set(a.auth).expect(200);
    await waitFor(async () => {
      await trade(m.id, 0.5, 1000);
      await beat();
      return (await payloads(sub)).length > 0;
    }, { message: 'the restarted rule to fire' });
  });

  it('a rule created while the engine runs starts watching the market\'s trades', async () => {
    const a = await env.newAccount();
    const event = await newEvent();
    const m = event.markets[0]!;
    const wl = await watchlistWith(env, a, [event as any]);
    await engine();
    const sub = await rule(a, wl, event.id, m.id, { type: 'Large Trade', params: { min_usd: 100 } });
    await waitFor(async () => (await savedPrice(env.database, m.yesTokenId)) !== undefined, { message: 'the engine to follow the new rule\'s token' });
    await trade(m.id, 0.5, 400);
    await waitFor(async () => (await payloads(sub)).length === 1, { message: 'the trade to fire' });
  });
});

describe(`Volume Spike through the simulator (${engineName})`, () => {
  it('fires when the hour\'s trades reach the multiple of the catalog\'s hourly average, not below; Recurring waits for the spike to end', async () => {
    const a = await env.newAccount();
    const event = await newEvent(1, 24_000); // $1,000 an hour
    const m = event.markets[0]!;
    const wl = await watchlistWith(env, a, [event as any]);
    const twice = await rule(a, wl, event.id, m.id, { type: 'Volume Spike', params: { multiple: 2 }, triggerType: 'One Time' });
    const half = await rule(a, wl, event.id, m.id, { type: 'Volume Spike', params: { multiple: 1.5 } });
    const beat = metronome(await rule(a, wl, event.id, m.id, { type: 'Large Trade', params: { min_usd: 0.01 } }));
    await engine(m.yesTokenId);

    await trade(m.id, 0.5, 2_999.98); // $1,499.99 in the hour: 1.49999×
    await beat();
    expect(await payloads(half)).toEqual([]);
    await trade(m.id, 0.5, 0.02); // $1,500.00: 1.5×
    await beat();
    await trade(m.id, 0.5, 999.98); // $1,999.99: not yet 2×; the 1.5× spike goes on
    await beat();
    expect(await payloads(twice)).toEqual([]);
    await trade(m.id, 0.5, 0.02); // $2,000.00: 2×
    await beat();
    await trade(m.id, 0.5, 2_000); // $3,000.00: 3×, nothing new
    await beat();

    const halves = await payloads(half);
    expect(halves).toHaveLength(1);
    expect(halves[0].detectionDetails).toMatchObject({ hourVolumeUsd: 1500, baselineHourlyUsd: 1000, volumeMultiple: 1.5 });
    const spikes = await payloads(twice);
    expect(spikes).toHaveLength(1);
    expect(spikes[0]).toMatchObject({
      subscriptionTypeConfig: { type: 'Volume Spike', config: { params: { multiple: 2 } } },
      detectedValue: 0.5,
      detectionDetails: { hourVolumeUsd: 2000, baselineHourlyUsd: 1000, baselineSource: 'catalog', volumeMultiple: 2 },
      polymarketSourceEvent: { event_type: 'last_trade_price', size: '0.02' },
    });
    PriceNotification.parse(spikes[0]);
    expect(await getSub(env, a, twice)).toMatchObject({ status: { enabled: false, reason: 'Triggered' }, triggerCount: 1 });
  });

  it('never fires for a market whose catalog shows no volume', async () => {
    const a = await env.newAccount();
    const event = await newEvent(1, 0);
    const m = event.markets[0]!;
    const wl = await watchlistWith(env, a, [event as any]);
    const spike = await rule(a, wl, event.id, m.id, { type: 'Volume Spike', params: { multiple: 1.5 } });
    const beat = metronome(await rule(a, wl, event.id, m.id, { type: 'Large Trade', params: { min_usd: 0.01 } }));
    await engine(m.yesTokenId);
    await trade(m.id, 0.5, 100_000);
    await beat();
    expect(await payloads(spike)).toEqual([]);
  });
});

describe(`Volume Spike over time (${engineName})`, () => {
  const lastTrade = (token: string, price: number, size: number, timestampMs: number): LastTradeMessage => ({
    type: 'last_trade_price', assetId: token, market: '0xm', price, side: 'BUY', size, timestampMs, transactionHash: null,
  });

  it('takes the catalog\'s newer volume24hr as the baseline without a reload', async () => {
    const a = await env.newAccount();
    const event = await newEvent(1, 24_000); // $1,000 an hour
    const m = event.markets[0]!;
    const wl = await watchlistWith(env, a, [event as any]);
    const sub = await rule(a, wl, event.id, m.id, { type: 'Volume Spike', params: { multiple: 2 } });
    const runner = createEngineRunner({ database: env.database, logger: silent, flushIntervalMs: 20, baselineRefreshMs: 0 });
    await runner.start();
    try {
      let at = Date.now();
      runner.onTrade(lastTrade(m.yesTokenId, 0.5, 3000, at), at); // $1,500: 1.5×
      await runner.idle();
      expect(await payloads(sub)).toEqual([]);
      // The sync saw the market's day volume fall: $500 an hour.
      await env.database.db.update(catalogMarkets).set({ volume24hr: 12_000 }).where(eq(catalogMarkets.id, m.id));
      const [fired] = await waitFor(async () => {
        at += 1;
        runner.onTrade(lastTrade(m.yesTokenId, 0.5, 0.02, at), at);
        await runner.idle();
        const found = await payloads(sub);
        return found.length > 0 && found;
      }, { message: 'the lower baseline to be read' });
      expect(fired.detectionDetails).toMatchObject({ baselineHourlyUsd: 500, baselineSource: 'catalog' });
    } finally {
      await runner.stop();
    }
  });

  it('a Recurring rule fires again once the hour has emptied and the volume rises past the multiple again, after its interval', async () => {
    const a = await env.newAccount();
    const event = await newEvent(1, 24_000);
    const m = event.markets[0]!;
    const wl = await watchlistWith(env, a, [event as any]);
    const sub = await rule(a, wl, event.id, m.id, { type: 'Volume Spike', params: { multiple: 2 }, triggerInterval: '30m' });
    const c = clock(Date.now());
    const start = c.now();
    const runner = startRunner(env, c);
    await runner.start();
    try {
      expect(runner.tokens()).toContain(m.yesTokenId);
      const at = (minutes: number, usd: number) => {
        const t = c.advance(minutes * 60_000);
        runner.onTrade(lastTrade(m.yesTokenId, 0.5, usd * 2, t), t);
      };
      at(0, 2500); // 2.5×: fires
      at(40, 2500); // 5×: past its pause, but the same spike
      await runner.reloadSubscriptions([sub]); // as a watchlist or catalog change does: the spike is remembered
      at(40, 500); // the first trade left the hour: 2.5× before this one, 3× after: still the same spike
      at(70, 2500); // the hour held nothing before this one: a new spike, 2.5×
      await runner.idle();
      const fired = await payloads(sub);
      expect(fired.map((p) => p.detectionDetails.hourVolumeUsd)).toEqual([2500, 2500]);
      expect(fired.map((p) => p.detectedAtMs)).toEqual([start, c.now()]);
    } finally {
      await runner.stop();
    }
  });
});

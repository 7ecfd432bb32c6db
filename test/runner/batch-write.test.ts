import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { asc, inArray, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../src/db/client.js';
import {
  deliveries,
  notifications,
  subscriptionChannels,
  subscriptionMarketState,
  subscriptions,
} from '../../src/db/schema/index.js';
import { ReplayInBatch, writeFiring, writeFirings, type PendingFiring } from '../../src/runner/fire.js';
import type { Firing } from '../../src/engine/rules.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { clock, seedEvent, startRunner, subscribe, watchlistWith, type Clock } from './helpers.js';
import { waitFor } from '../support/wait.js';

// The engine writes a batch of firings with `writeFirings` (a fixed number of statements); it
// must leave exactly what `writeFiring` leaves when called on each firing in turn.

let env: TestEnv;
let subIds: string[];
let marketIds: string[];
const tokenOf = new Map<string, string>();
beforeAll(async () => {
  env = await createTestEnv();
  const a = await env.newAccount();
  const events = [await seedEvent(env.database, { markets: 2 }), await seedEvent(env.database, { markets: 1 })];
  for (const e of events) for (const m of e.markets) tokenOf.set(m.id, m.yesTokenId);
  marketIds = [...tokenOf.keys()];
  const wl = await watchlistWith(env, a, events);
  const webhook = { type: 'Webhook', settings: { webhookUrl: 'http://127.0.0.1:9/hook' } };
  const [e0, e1] = events as [(typeof events)[0], (typeof events)[0]];
  subIds = [
    await subscribe(env, a, wl, { scope: 'Market', eventId: e0.id, marketId: e0.markets[0]!.id, triggerType: 'Recurring', triggerInterval: '5m' }),
    await subscribe(env, a, wl, { scope: 'Market', eventId: e0.id, marketId: e0.markets[1]!.id, triggerType: 'One Time', channels: [{ type: 'In App' }, webhook] }),
    await subscribe(env, a, wl, { scope: 'Event', eventId: e0.id, triggerType: 'One Time' }),
    await subscribe(env, a, wl, { scope: 'Watchlist', triggerType: 'Recurring', triggerInterval: '5m', channels: [webhook] }),
    await subscribe(env, a, wl, { scope: 'Market', eventId: e1.id, marketId: e1.markets[0]!.id, triggerType: 'Recurring', triggerInterval: '5m' }),
  ];
  // One paused subscription: its firings are skipped.
  await env.database.db.update(subscriptions).set({ enabled: false, statusReason: 'Paused by user' }).where(inArray(subscriptions.id, [subIds[4]!]));
});
afterAll(async () => {
  await env?.close();
});

class Rollback extends Error {
  constructor(readonly snapshot: unknown) {
    super('rollback');
  }
}

/** What a user can see after the write: notifications, deliveries, subscription and channel state. */
async function snapshot(tx: Tx) {
  const subs = await tx
    .select({
      id: subscriptions.id,
      enabled: subscriptions.enabled,
      statusReason: subscriptions.statusReason,
      triggerCount: subscriptions.triggerCount,
      lastTriggeredAt: subscriptions.lastTriggeredAt,
    })
    .from(subscriptions)
    .where(inArray(subscriptions.id, subIds))
    .orderBy(asc(subscriptions.id));
  const notes = await queryRows(
    tx,
    sql`
    select n.dedupe_key, n.type, n.subscription_id, n.payload - 'createdAt' as payload,
      (select json_agg(json_build_array(d.position, d.channel_type, d.settings, d.status) order by d.position)
       from deliveries d where d.notification_id = n.id) as deliveries
    from notifications n where n.subscription_id in (${sql.join(subIds.map((id) => sql`${id}`), sql`, `)})
    order by n.dedupe_key`,
  );
  const channels = await tx.select().from(subscriptionChannels).where(inArray(subscriptionChannels.subscriptionId, subIds)).orderBy(asc(subscriptionChannels.subscriptionId), asc(subscriptionChannels.position));
  const marketState = await tx.select().from(subscriptionMarketState).where(inArray(subscriptionMarketState.subscriptionId, subIds)).orderBy(asc(subscriptionMarketState.subscriptionId), asc(subscriptionMarketState.marketId));
  return { subs, notes, channels, marketState };
}

async function runThenRollBack(write: (tx: Tx) => Promise<unknown>) {
  try {
    await env.database.db.transaction(async (tx) => {
      const outcomes = await write(tx);
      throw new Rollback({ outcomes, state: await snapshot(tx) });
    });
  } catch (error) {
    if (error instanceof Rollback) return error.snapshot as { outcomes: unknown; state: unknown };
    throw error;
  }
  throw new Error('unreachable');
}

const firingArb = (start: number) =>
  fc.record({ sub: fc.nat({ max: 4 }), market: fc.nat({ max: 2 }), dt: fc.nat({ max: 3 }), price: fc.integer({ min: 1, max: 99 }) }).map(
    ({ sub, market, dt, price }): Firing => ({
      ruleId: 0,
      subscriptionId: subIds[sub]!,
      marketId: marketIds[market]!,
      token: tokenOf.get(marketIds[market]!)!,
      ruleType: 'Crossing Up',
      previousPrice: 0.5,
      price: price / 100,
      atMs: start + dt,
    }),
  );

describe(`engine runner: batched firing writes (${engineName})`, () => {
  it('leave the same outcomes and state as writing each firing in turn (property)', async () => {
    const start = Date.UTC(2026, 0, 1);
    await fc.assert(
      fc.asyncProperty(fc.array(firingArb(start), { minLength: 1, maxLength: 12 }), async (firings) => {
        // Keys are unique per (subscription, market, time) within a batch, as the index makes them.
        const seen = new Set<string>();
        const batch: PendingFiring[] = firings
          .filter((f) => !seen.has(`${f.subscriptionId}:${f.marketId}:${f.atMs}`) && seen.add(`${f.subscriptionId}:${f.marketId}:${f.atMs}`))
          .map((firing) => ({ firing, ctx: { receivedAtMs: start, sourceTimestampMs: firing.atMs - 1 } }));
        const one = await runThenRollBack(async (tx) => {
          const outcomes = [];
          for (const { firing, ctx } of batch) outcomes.push(await writeFiring(tx, firing, ctx));
          return outcomes;
        });
        const many = await runThenRollBack((tx) => writeFirings(tx, batch));
        expect(many).toEqual(one);
      }),
      { numRuns: 40 },
    );
    // 80 rolled-back transactions: seconds on an idle machine, several times that on a loaded CI one.
  }, 120_000);

  it('refuses a batch holding a firing written before, so the runner redoes it one firing at a time', async () => {
    const firing: Firing = {
      ruleId: 0,
      subscriptionId: subIds[0]!,
      marketId: marketIds[0]!,
      token: tokenOf.get(marketIds[0]!)!,
      ruleType: 'Crossing Up',
      previousPrice: 0.5,
      price: 0.7,
      atMs: Date.UTC(2026, 0, 2),
    };
    const ctx = { receivedAtMs: firing.atMs };
    const result = await runThenRollBack(async (tx) => {
      expect(await writeFiring(tx, firing, ctx)).toBe('written');
      await expect(tx.transaction((sp) => writeFirings(sp, [{ firing, ctx }]))).rejects.toBeInstanceOf(ReplayInBatch);
      return writeFiring(tx, firing, ctx);
    });
    expect(result.outcomes).toBe('duplicate');
  });
});

describe(`engine runner: a replayed firing beside new ones (${engineName})`, () => {
  it('the runner writes the new firings and reports the replay as a duplicate', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 2 });
    const wl = await watchlistWith(env, a, [event]);
    const [m0, m1] = event.markets as [(typeof event.markets)[0], (typeof event.markets)[0]];
    const s0 = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m0.id, threshold: 60 });
    const s1 = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m1.id, threshold: 60 });
    const c: Clock = clock();
    const runner = startRunner(env, c);
    await runner.start();
    const outcomes: string[] = [];
    runner.on('fired', (f, outcome) => outcomes.push(`${f.subscriptionId === s0 ? 's0' : 's1'}:${outcome}`));
    // The firing s0 will make at this time is already stored, as after a crash before the ack.
    runner.onPrice(m0.yesTokenId, 0.5, c.now());
    runner.onPrice(m1.yesTokenId, 0.5, c.now());
    await runner.idle();
    c.advance(1000);
    await env.database.db.insert(notifications).values({
      id: `replayed-${s0}`,
      accountId: a.userId,
      subscriptionId: s0,
      type: 'price_notification',
      payload: {},
      dedupeKey: `${s0}:${m0.id}:${c.now()}`,
    });
    runner.onPrice(m0.yesTokenId, 0.65, c.now());
    runner.onPrice(m1.yesTokenId, 0.65, c.now());
    await runner.idle();
    await runner.stop();
    await waitFor(() => { expect(outcomes.sort()).toEqual(['s0:duplicate', 's1:written']); return true; });
    const rows = await env.database.db.select({ id: deliveries.id }).from(deliveries).innerJoin(notifications, sql`${notifications.id} = ${deliveries.notificationId}`).where(inArray(notifications.subscriptionId, [s0, s1]));
    expect(rows).toHaveLength(1);
  });
});

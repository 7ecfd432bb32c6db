import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import type { Queryable } from '../../src/db/client.js';
import { DeliveryHandoff, type HandoffReceiver } from '../../src/delivery/handoff.js';
import { claimDueDeliveries, type ClaimedWithContext } from '../../src/delivery/outbox-store.js';
import type { Firing } from '../../src/engine/rules.js';
import { createEngineRunner } from '../../src/runner/engine-runner.js';
import { writeFirings, type FireOutcome } from '../../src/runner/fire.js';
import { databaseFiringStore } from '../../src/runner/firing-writer.js';
import { TokenPriceStore, type PriceBatch } from '../../src/runner/token-prices.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { clock, seedEvent, silent, subscribe, watchlistWith } from './helpers.js';

// The engine's firing writes hand their deliveries to this process's worker with the send context
// the write's own statement reads (src/delivery/handoff.ts). It must be what a claim of the same
// committed rows would load: same fields, same rule state (a One Time rule is paused by its firing).

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

const withoutLease = ({ lease: _lease, ...rest }: ClaimedWithContext) => rest;

describe(`engine runner: hand-off of the firing's deliveries (${engineName})`, () => {
  it('hands over after the commit the deliveries a claim would load, with the same context', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 2 });
    const wl = await watchlistWith(env, a, [event]);
    const [m0, m1] = event.markets as [(typeof event.markets)[0], (typeof event.markets)[0]];
    const webhook = { type: 'Webhook', settings: { webhookUrl: 'http://127.0.0.1:9/hook' } };
    await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m0.id, triggerType: 'One Time', channels: [{ type: 'In App' }, webhook] });
    await subscribe(env, a, wl, { scope: 'Event', eventId: event.id, triggerType: 'Recurring', triggerInterval: '5m', channels: [webhook] });

    const taken: ClaimedWithContext[] = [];
    let committedWhenTaken = true;
    const handoff = new DeliveryHandoff();
    handoff.attach({
      leaseMs: 30_000,
      reserve: (wanted) => wanted,
      unreserve: () => {},
      take: (claims) => {
        taken.push(...claims);
        // Taken only once committed: another connection (PostgreSQL) or the next statement (PGlite) sees the rows.
        void env.database
          .rows<{ n: number }>(sql`select count(*)::int as n from deliveries where id in (select jsonb_array_elements_text(${JSON.stringify(claims.map((c) => c.id))}::jsonb))`)
          .then(([row]) => (committedWhenTaken &&= row!.n === claims.length));
      },
    });
    const c = clock();
    const runner = createEngineRunner({ database: env.database, logger: silent, now: c.now, flushIntervalMs: 60_000, handoff });
    await runner.start();
    try {
      for (const m of [m0, m1]) runner.onPrice(m.yesTokenId, 0.5, c.now());
      c.advance(1000);
      for (const m of [m0, m1]) runner.onPrice(m.yesTokenId, 0.65, c.now());
      await runner.idle();
    } finally {
      await runner.stop();
    }
    // Three firings (m0 by both rules, m1 by the Event rule); four deliveries, In App included.
    expect(taken).toHaveLength(4);
    await env.database.rows(sql`select 1`);
    expect(committedWhenTaken).toBe(true);
    const oneTime = taken.filter((t) => t.context.rule?.triggerType === 'One Time');
    expect(oneTime.map((t) => t.context.rule)).toEqual([
      { enabled: false, triggerType: 'One Time' },
      { enabled: false, triggerType: 'One Time' },
    ]);

    // The same rows as a claim loads them once their lease is given up.
    const ids = taken.map((t) => t.id);
    await env.database.rows(
      sql`update deliveries set lease_until = null where id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)) returning id`,
    );
    const claimed = (await claimDueDeliveries(env.database, 100, 30_000)).filter((d) => ids.includes(d.id));
    const byId = (list: ClaimedWithContext[]) => [...list].sort((x, y) => (x.id < y.id ? -1 : 1)).map(withoutLease);
    expect(byId(taken)).toEqual(byId(claimed));
    // Byte for byte: the first attempt's body is serialised from the same payload as a retry's
    // (toEqual above ignores key order; jsonb keeps its own).
    const bodies = (list: ClaimedWithContext[]) => byId(list).map((c) => JSON.stringify(c.context.payload));
    expect(bodies(taken)).toEqual(bodies(claimed));
  });
});

/** A market rule with one channel, and firings of it (a distinct price move each). */
async function firingRule(a: TestAccount, channels: unknown[]) {
  const event = await seedEvent(env.database, { markets: 1 });
  const wl = await watchlistWith(env, a, [event]);
  const market = event.markets[0]!;
  const subscriptionId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: market.id, triggerType: 'Recurring', triggerInterval: '5m', channels });
  let atMs = Date.UTC(2026, 0, 2);
  const next = () => {
    atMs += 60_000;
    const firing: Firing = { ruleId: 0, subscriptionId, marketId: market.id, token: market.yesTokenId, ruleType: 'Crossing Up', previousPrice: 0.5, price: 0.7, atMs };
    return { firing, ctx: { receivedAtMs: atMs } };
  };
  return { subscriptionId, token: market.yesTokenId, next };
}

/** A worker's side that takes every slot asked for and counts what comes back. */
function countingReceiver(events: string[] = [], onTake?: () => void) {
  const counts = { reserved: 0, unreserved: 0, taken: 0 };
  const receiver: HandoffReceiver = {
    leaseMs: 30_000,
    reserve(wanted) {
      events.push('reserve');
      counts.reserved += wanted;
      return wanted;
    },
    unreserve(count) {
      counts.unreserved += count;
    },
    take(claims) {
      counts.taken += claims.length;
      onTake?.();
    },
  };
  return { receiver, counts, settled: () => counts.reserved === counts.unreserved + counts.taken };
}

const webhook = (url: string) => ({ type: 'Webhook', settings: { webhookUrl: url } });

describe(`engine firing store: the hand-off around the firing write (${engineName})`, () => {
  it('saves the prices before the outbox write, so the lease handed off starts last', async () => {
    const a = await env.newAccount();
    const rule = await firingRule(a, [webhook('http://127.0.0.1:9/hook')]);
    const events: string[] = [];
    const prices = new (class extends TokenPriceStore {
      override saveIn(on: Queryable, batch: PriceBatch) {
        events.push('prices');
        return super.saveIn(on, batch);
      }
    })(env.database);
    const { receiver, settled } = countingReceiver(events);
    const handoff = new DeliveryHandoff();
    handoff.attach(receiver);
    const store = databaseFiringStore(env.database, silent, prices, undefined, handoff);
    expect(await store.writeFirings([rule.next()], [[rule.token, 0.7]], [])).toEqual(['written']);
    expect(events).toEqual(['prices', 'reserve']);
    expect(settled()).toBe(true);
  });

  it('a hand-off that throws after COMMIT does not write the batch again', async () => {
    const a = await env.newAccount();
    const rule = await firingRule(a, [webhook('http://127.0.0.1:9/hook')]);
    const { receiver, counts, settled } = countingReceiver([], () => {
      throw new Error('take failed');
    });
    const handoff = new DeliveryHandoff();
    handoff.attach(receiver);
    const store = databaseFiringStore(env.database, silent, new TokenPriceStore(env.database), undefined, handoff);
    // Not 'duplicate': the one-at-a-time fallback (which would find it written) does not run.
    expect(await store.writeFirings([rule.next()], [], [])).toEqual(['written']);
    expect(counts).toEqual({ reserved: 1, unreserved: 0, taken: 1 });
    expect(settled()).toBe(true);
    const [row] = await env.database.rows<{ n: number }>(sql`select count(*)::int as n from notifications where subscription_id = ${rule.subscriptionId}`);
    expect(row!.n).toBe(1);
  });

  it('a batch redone one firing at a time (a replay in it) gives back every slot it reserved and hands nothing off', async () => {
    const a = await env.newAccount();
    const rule = await firingRule(a, [webhook('http://127.0.0.1:9/hook')]);
    const replayed = rule.next();
    const store = databaseFiringStore(env.database, silent, new TokenPriceStore(env.database));
    expect(await store.writeFirings([replayed], [], [])).toEqual(['written']);
    const { receiver, counts, settled } = countingReceiver();
    const handoff = new DeliveryHandoff();
    handoff.attach(receiver);
    const handing = databaseFiringStore(env.database, silent, new TokenPriceStore(env.database), undefined, handoff);
    expect(await handing.writeFirings([rule.next(), replayed], [], [])).toEqual(['written', 'duplicate']);
    expect(counts.taken).toBe(0);
    expect(settled()).toBe(true);
  });

  // PostgreSQL only: PGlite has one connection, so no write waits on another's lock.
  it.runIf(engineName === 'postgres')('a firing waiting on the rule\'s lock uses the channels committed with the rule it locks', async () => {
    const a = await env.newAccount();
    const rule = await firingRule(a, [webhook('http://127.0.0.1:9/old')]);
    const pending = rule.next();
    const other = postgres(env.databaseUrl!, { max: 1, onnotice: () => {} });
    let writing: Promise<FireOutcome[]> | undefined;
    try {
      // PATCH /subscription/{id}: the row updated and its channels replaced in one transaction.
      await other.begin(async (t) => {
        await t`update subscriptions set updated_at = now() where id = ${rule.subscriptionId}`;
        await t`delete from subscription_channels where subscription_id = ${rule.subscriptionId}`;
        await t`insert into subscription_channels (subscription_id, position, type, settings) values (${rule.subscriptionId}, 0, 'Webhook', ${t.json({ webhookUrl: 'http://127.0.0.1:9/new' })})`;
        writing = env.database.db.transaction((tx) => writeFirings(tx, [pending]));
        writing.catch(() => {});
        // The firing write is now waiting for the rule's lock.
        await new Promise((resolve) => setTimeout(resolve, 200));
      });
      expect(await writing).toEqual(['written']);
    } finally {
      await other.end();
    }
    const rows = await env.database.rows<{ settings: { webhookUrl: string } }>(
      sql`select d.settings from deliveries d join notifications n on n.id = d.notification_id where n.subscription_id = ${rule.subscriptionId}`,
    );
    expect(rows.map((r) => r.settings.webhookUrl)).toEqual(['http://127.0.0.1:9/new']);
  });
});

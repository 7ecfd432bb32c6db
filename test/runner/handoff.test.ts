import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { DeliveryHandoff } from '../../src/delivery/handoff.js';
import { claimDueDeliveries, type ClaimedWithContext } from '../../src/delivery/outbox-store.js';
import { createEngineRunner } from '../../src/runner/engine-runner.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
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
  });
});

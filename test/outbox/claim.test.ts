import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { claimDueDeliveries, recordAttempts } from '../../src/delivery/outbox-store.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { createSubscription, fireMany, OUTBOX_SETTINGS } from './support.js';

// The claim over a backlog (drizzle/0021_claim_in_due_order.sql): it reads the deliveries it takes,
// not the whole queue, whatever the table's statistics say; and its lease, unlike an outcome, is
// no change a subscription listing shows.

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv(OUTBOX_SETTINGS);
});
afterAll(async () => {
  await env?.close();
});

const webhook = [{ type: 'Webhook' as const, settings: { webhookUrl: 'http://127.0.0.1:9/hook' } }];

/** Every pending delivery recorded SENT (the queue left empty for the next test). */
async function settleAll() {
  await env.database.db.execute(sql`update deliveries set status = 'SENT', lease_until = null where status = 'PENDING'`);
}

/** Per account, the raises of its listing: its own counter row and its deliveries' row (drizzle/0026) together. */
async function listingCounters(accounts: TestAccount[]) {
  const rows = await env.database.rows<{ account: string; version: string }>(
    sql`select account_id as account, version::text as version from subscription_list_versions
        where account_id in (select k from jsonb_array_elements_text(${JSON.stringify(accounts.map((a) => a.userId))}::jsonb) a(id),
          lateral (values (id), (id || ' deliveries')) keys(k))`,
  );
  return accounts.map((a) =>
    rows.filter((r) => r.account === a.userId || r.account === `${a.userId} deliveries`).reduce((sum, r) => sum + Number(r.version), 0),
  );
}

describe(`the claim over a backlog (${engineName})`, () => {
  it('takes the first due deliveries in due order and reads only those, though the statistics say none are pending', async () => {
    const a = await env.newAccount();
    const sub = await createSubscription(env, a, webhook);
    // Statistics taken while nothing was pending: the planner expects a queue of a few rows.
    await fireMany(env, a, sub, 20);
    await settleAll();
    await env.database.db.execute(sql`analyze deliveries`);
    const backlog = 600;
    const ids = await fireMany(env, a, sub, backlog);
    // Due in the order written, a millisecond apart: the claim must take the first ten.
    await env.database.db.execute(sql`
      update deliveries d set due_at = now() - interval '1 hour' + o.ord * interval '1 millisecond'
      from (select id, ordinality as ord from jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb) with ordinality as x(id)) o
      where d.notification_id = o.id`);

    const read = await env.database.db.transaction(async (tx) => {
      // Rows of deliveries fetched through an index or read by a table scan, counted by this session
      // (counts not yet flushed, earlier statements' included: so the pick's are the difference).
      const counted = async () => {
        const [counts] = await env.database.rows<{ n: number }>(
          sql`select (idx_tup_fetch + seq_tup_read)::int as n from pg_stat_xact_user_tables where relname = 'deliveries'`,
          tx,
        );
        return counts!.n;
      };
      const before = await counted();
      await env.database.rows(sql`select id from pick_due_deliveries(10, now())`, tx);
      return (await counted()) - before;
    });
    // The claim that starts with that pick leases the same ten, the first due.
    const taken = (await claimDueDeliveries(env.database, 10, 30_000)).map((d) => d.notificationId);
    expect(new Set(taken)).toEqual(new Set(ids.slice(0, 10)));
    // The ordered read above is also what the planner picks on its own for so small a table; on a
    // large backlog with such statistics it sorted every due row instead, unless sorting is off.
    const [fn] = await env.database.rows<{ config: string[] }>(sql`select proconfig as config from pg_proc where proname = 'pick_due_deliveries'`);
    expect(fn!.config).toContain('enable_sort=off');
    // Ten read in due order, not the 600 of the queue.
    expect(read).toBeGreaterThanOrEqual(10);
    expect(read).toBeLessThan(30);
    await settleAll();
  });

  it('a claim leaves the listing counters alone; the outcomes of a batch raise each account once', async () => {
    const accounts = [await env.newAccount(), await env.newAccount()];
    for (const account of accounts) await fireMany(env, account, await createSubscription(env, account, webhook), 150);
    const before = await listingCounters(accounts);

    const claimed = await claimDueDeliveries(env.database, 1000, 30_000);
    expect(claimed).toHaveLength(300);
    expect(await listingCounters(accounts)).toEqual(before);

    const kept = await recordAttempts(
      env.database,
      claimed.map((delivery) => ({ delivery, outcome: { status: 'SENT' as const, result: { outcome: 'sent' as const, statusCode: 200, durationMs: 1 } } })),
    );
    expect(kept.size).toBe(300);
    expect(await listingCounters(accounts)).toEqual(before.map((v) => v + 1));
    const statuses = await env.database.rows<{ status: string; n: number }>(
      sql`select status, count(*)::int as n from deliveries d join notifications n on n.id = d.notification_id
          where n.account_id in (${accounts[0]!.userId}, ${accounts[1]!.userId}) group by status`,
    );
    expect(statuses).toEqual([{ status: 'SENT', n: 300 }]);
  });
});

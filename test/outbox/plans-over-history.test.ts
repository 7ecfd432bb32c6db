import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../../src/db/index.js';
import { analyzeChangedTables } from '../../src/db/pglite-analyze.js';
import { writeNotificationsOnce } from '../../src/delivery/enqueue.js';
import { DeliveryHandoff } from '../../src/delivery/handoff.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { json, startReceiver, type Receiver } from '../delivery/support/receiver.js';
import { createSubscription, firingInputs, OUTBOX_SETTINGS, startWorker } from './support.js';
import { waitFor } from '../support/wait.js';

// The delivery path's statements are named statements (src/db/prepared.ts, client.ts): each keeps
// one generic plan, made while the outbox tables were small and kept until something invalidates it
// (DDL, ANALYZE: autovacuum's on PostgreSQL, src/db/pglite-analyze.ts on PGlite). Joined by key to a
// batch of rows whose count the planner guesses (100 for jsonb_to_recordset), they were planned as
// hash joins over scans of the whole table, before and after an ANALYZE: the firing write's hand-off,
// the claim and the outcomes' endpoint health read every notification and delivery, on every firing,
// and grew with the inbox's history. Here the plans are made at once (force_generic_plan) on
// near-empty tables, the history grows, the statistics are taken as the server (or the service, on
// PGlite) would, and the same work must read no row of the three history tables by a sequential scan.

const HISTORY_TABLES = ['notifications', 'deliveries', 'delivery_attempts'] as const;

let env: TestEnv;
let receiver: Receiver;
const opened: Database[] = [];
beforeAll(async () => {
  env = await createTestEnv(OUTBOX_SETTINGS);
  // Every notification's first try is rate limited (429), its retry taken: a retry's claim reads the
  // delivery's earlier attempts (how many were 429s), so the attempts table is read as well.
  const tried = new Set<string>();
  receiver = await startReceiver((req, res) => {
    const id = String(req.headers['webhook-id']);
    if (tried.has(id)) return json(res, 200, {});
    tried.add(id);
    json(res, 429, {});
  });
});
afterAll(async () => {
  for (const database of opened) await database.close();
  await receiver?.close();
  await env?.close();
});

/** The database the outbox work runs on, every statement with a generic plan made at its first call. */
async function workDatabase(): Promise<Database> {
  if (engineName === 'pglite') {
    // PGlite's one session is the test's database: the setting holds for every statement of it.
    await env.database.db.execute(sql`set plan_cache_mode = force_generic_plan`);
    return env.database;
  }
  const url = new URL(env.databaseUrl!);
  url.searchParams.set('plan_cache_mode', 'force_generic_plan');
  url.searchParams.set('application_name', WORK_SESSIONS);
  const database = await openDatabase({ databaseUrl: url.toString(), maxConnections: 3 });
  opened.push(database);
  return database;
}

const WORK_SESSIONS = 'plans-over-history';

/**
 * Ends the work's sessions (PostgreSQL), so each reports its counts: an idle session reports them at
 * most once a second, or ten seconds later when it reported less than a second before, and an ending
 * one reports them before it leaves pg_stat_activity. Waits until none is left there.
 */
async function endSessions(database: Database) {
  if (database === env.database) return;
  opened.splice(opened.indexOf(database), 1);
  await database.close();
  await waitFor(
    async () =>
      (await env.database.rows<{ n: number }>(sql`select count(*)::int as n from pg_stat_activity where application_name = ${WORK_SESSIONS}`))[0]!.n === 0,
    { message: 'the work sessions to end' },
  );
}

type Sub = Awaited<ReturnType<typeof createSubscription>>;

/** Firings handed to the worker in the write (as the engine's store does), and firings left to a claim. */
async function deliverSome(database: Database, a: TestAccount, sub: Sub, handoff: DeliveryHandoff) {
  const ids: (string | null)[] = [];
  for (let i = 0; i < 3; i++) {
    const handing = handoff.begin();
    ids.push(...(await database.db.transaction((tx) => writeNotificationsOnce(tx, firingInputs(a, sub, 4), undefined, handing))));
    handing?.committed();
  }
  ids.push(...(await writeNotificationsOnce(database.db, firingInputs(a, sub, 3))));
  // Each notification tried twice: the 429 and the retry.
  const tries = () => ids.map((id) => receiver.requests.filter((r) => r.headers['webhook-id'] === id).length);
  await waitFor(() => tries().every((n) => n >= 2), { message: `${ids.length} webhooks, each tried twice` });
}

/** Rows read by sequential scans of each history table, and index scans of it, once every session's counts are in. */
async function reads(): Promise<Record<string, { seq: number; index: number }>> {
  // PGlite's one session reports its counts when asked; PostgreSQL's work sessions have ended
  // (endSessions), and report theirs as they end.
  if (engineName === 'pglite') await env.database.rows(sql`select pg_stat_force_next_flush()`);
  await env.database.rows(sql`select pg_stat_clear_snapshot()`);
  const rows = await env.database.rows<{ table: string; seq: number; index: number }>(
    sql`select relname as table, coalesce(seq_tup_read, 0)::int as seq, coalesce(idx_scan, 0)::int as index from pg_stat_user_tables
        where relname in ('notifications', 'deliveries', 'delivery_attempts')`,
  );
  return Object.fromEntries(
    HISTORY_TABLES.map((t) => {
      const row = rows.find((r) => r.table === t);
      return [t, { seq: row?.seq ?? 0, index: row?.index ?? 0 }];
    }),
  );
}

describe(`the outbox's statements as its history grows (${engineName})`, () => {
  it('a firing write with its hand-off, the claims of first tries and retries and the outcomes read no history table by a sequential scan', async () => {
    const a = await env.newAccount();
    const sub = await createSubscription(env, a, [{ type: 'Webhook', settings: { webhookUrl: `${receiver.url}/hook` } }]);
    const handoff = new DeliveryHandoff();
    let database = await workDatabase();
    // No polling claims: each claim comes from a write's notice.
    let worker = await startWorker(database, env.config, { pollMs: 60_000, handoff });
    try {
      // Every statement planned now, on near-empty tables.
      await deliverSome(database, a, sub, handoff);
      await deliverSome(database, a, sub, handoff);

      // A history: 4,000 notifications, each with a delivery sent after one attempt.
      await database.db.execute(sql`
        with n as (
          insert into notifications (id, account_id, subscription_id, type, payload, dedupe_key)
          select 'old-' || g, ${a.userId}, ${sub.subscriptionId}, 'price_notification', '{"marketId": "mk-1"}'::jsonb, 'old-' || g
          from generate_series(1, 4000) g
          returning id
        ), d as (
          insert into deliveries (id, notification_id, position, channel_type, status, attempts)
          select 'd-' || id, id, 0, 'Webhook', 'SENT', 1 from n
          returning id
        )
        insert into delivery_attempts (delivery_id, status_code, duration_ms) select id, 200, 5 from d`);
      // What autovacuum does on PostgreSQL, and the service's own loop on PGlite.
      if (engineName === 'pglite') expect(await analyzeChangedTables(database, 0)).toEqual(expect.arrayContaining([...HISTORY_TABLES]));
      else await database.db.execute(sql`analyze notifications, deliveries, delivery_attempts`);
      // (On PostgreSQL the ANALYZE invalidated those plans; new sessions make them again, as the old would.)
      await worker.stop();
      await endSessions(database);
      const before = await reads();

      database = await workDatabase();
      worker = await startWorker(database, env.config, { pollMs: 60_000, handoff });
      await deliverSome(database, a, sub, handoff);
      await deliverSome(database, a, sub, handoff);
      await worker.stop();
      await endSessions(database);

      const after = await reads();
      expect(Object.fromEntries(HISTORY_TABLES.map((t) => [t, after[t]!.seq - before[t]!.seq]))).toEqual({
        notifications: 0,
        deliveries: 0,
        delivery_attempts: 0,
      });
      // Counted at all: each table was read meanwhile, through its indexes (the attempts by the retries' claims).
      for (const t of HISTORY_TABLES) expect(after[t]!.index, t).toBeGreaterThan(before[t]!.index);
    } finally {
      await worker.stop();
    }
  }, 60_000);
});

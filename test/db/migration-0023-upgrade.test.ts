// A database migrated to 0021 with subscriptions already in it, upgraded to 0022/0023: the kept
// subscription counts (0023) start right, and the upgrade does not deadlock with a process still
// running the old code while it writes subscriptions (PostgreSQL, a rolling upgrade). And one at
// 0025 upgraded to 0026 (the counter split by writer).
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/index.js';
import { migrate, MIGRATIONS_FOLDER } from '../../src/db/migrate.js';
import { createTestDatabase, engineName } from '../support/db.js';
import { migrationsUpTo } from '../support/migrations.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function emptyDatabase(): Promise<Database & { url?: string }> {
  const database = await createTestDatabase({ migrated: false });
  cleanups.push(() => database.drop());
  return database;
}

describe(`upgrade from 0021 with subscriptions in it (${engineName})`, () => {
  it('0023 counts the subscriptions already there, raises their listing counters, and the triggers keep counting', async () => {
    const database = await emptyDatabase();
    await migrate(database, await migrationsUpTo(21, cleanups));
    await database.db.execute(sql`insert into accounts (id, webhook_secret) values ('acc-a', 's'), ('acc-b', 's'), ('acc-c', 's')`);
    await database.db.execute(sql`insert into watchlists (id, account_id, name, query) values ('wl-a', 'acc-a', 'A', '{}'), ('wl-b', 'acc-b', 'B', '{}')`);
    await database.db.execute(sql`insert into subscriptions (id, account_id, watchlist_id, scope, type, trigger_type, status_reason)
      select 'sa' || n, 'acc-a', 'wl-a', 'Watchlist', 'Crossing', 'Recurring', 'x' from generate_series(1, 3) n`);
    await database.db.execute(sql`insert into subscriptions (id, account_id, watchlist_id, scope, type, trigger_type, status_reason)
      values ('sb1', 'acc-b', 'wl-b', 'Watchlist', 'Crossing', 'Recurring', 'x')`);
    // acc-c: a listing counter row but no subscription.
    await database.db.execute(sql`insert into subscription_list_versions (account_id, version) values ('acc-c', 7)`);
    const before = await database.rows<{ account_id: string; version: string }>(sql`select account_id, version::text from subscription_list_versions order by 1`);

    await migrate(database, MIGRATIONS_FOLDER);
    const after = await database.rows<{ account_id: string; version: string; subscriptions: number }>(
      sql`select account_id, version::text, subscriptions from subscription_list_versions order by 1`);
    expect(after.map((r) => [r.account_id, r.subscriptions])).toEqual([['acc-a', 3], ['acc-b', 1], ['acc-c', 0]]);
    for (const r of after) {
      const was = before.find((b) => b.account_id === r.account_id);
      if (r.account_id !== 'acc-c') expect(BigInt(r.version)).toBeGreaterThan(BigInt(was?.version ?? '0'));
    }
    // Later writes keep the count.
    await database.db.execute(sql`delete from subscriptions where id = 'sa1'`);
    await database.db.execute(sql`insert into subscriptions (id, account_id, watchlist_id, scope, type, trigger_type, status_reason)
      values ('sb2', 'acc-b', 'wl-b', 'Watchlist', 'Crossing', 'Recurring', 'x')`);
    await database.db.execute(sql`delete from watchlists where id = 'wl-a'`);
    const counted = await database.rows<{ account_id: string; subscriptions: number }>(
      sql`select account_id, subscriptions from subscription_list_versions order by 1`);
    expect(counted.map((r) => [r.account_id, r.subscriptions])).toEqual([['acc-a', 0], ['acc-b', 2], ['acc-c', 0]]);
  }, 120_000);
});

// Every writer locks subscriptions and then, in its trigger, subscription_list_versions. 0023 took
// them the other way round (its ALTER TABLE first) and deadlocked with a process still on the old
// code that had a write open: PostgreSQL aborted the migration and the start failed. It locks
// subscriptions first now, so it waits for the writer instead.
describe.runIf(engineName === 'postgres')('upgrade to 0023 while an old process writes subscriptions (postgres)', () => {
  it('the migration waits for the writer instead of deadlocking with it', async () => {
    const upgraded = MIGRATIONS_FOLDER;
    const database = await emptyDatabase();
    await migrate(database, await migrationsUpTo(21, cleanups));
    await database.db.execute(sql`insert into accounts (id, webhook_secret) values ('acc-a', 's')`);
    await database.db.execute(sql`insert into watchlists (id, account_id, name, query) values ('wl-a', 'acc-a', 'A', '{}')`);
    const name = (await database.rows<{ d: string }>(sql`select current_database() as d`))[0]!.d;
    const old = postgres(database.url!, { max: 1, onnotice: () => {} });
    cleanups.push(() => old.end());
    const writer = await old.reserve();
    await writer`begin`;
    // The old code's write has subscriptions locked (here a statement that matched no row; in the
    // old create statement, the time between its start and its trigger's upsert).
    await writer`update subscriptions set status_reason = status_reason where false`;
    const migrating = migrate(database, upgraded).then(
      () => 'migrated',
      (err: unknown) => `failed: ${String((err as { cause?: unknown }).cause ?? err)}`,
    );
    // The migration is waiting for the writer's lock before the writer goes on to its trigger.
    const observer = postgres(database.url!, { max: 1, onnotice: () => {} });
    cleanups.push(() => observer.end());
    while ((await observer`select count(*)::int as n from pg_stat_activity where datname = ${name} and wait_event_type = 'Lock'`)[0]!.n === 0) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const writing = writer`insert into subscriptions (id, account_id, watchlist_id, scope, type, trigger_type, status_reason)
      values ('s1', 'acc-a', 'wl-a', 'Watchlist', 'Crossing', 'Recurring', 'x')`.then(
      async () => {
        await writer`commit`;
        return 'written';
      },
      async (err: unknown) => {
        await writer`rollback`;
        return `failed: ${String(err)}`;
      },
    );
    const [m, w] = await Promise.all([migrating, writing]);
    writer.release();
    expect({ m, w }).toEqual({ m: 'migrated', w: 'written' });
  }, 60_000);
});

// 0026 splits the counter by writer: the rows already there stay the accounts' rows (versions and
// counts as they were); a delivery's change then makes the account's deliveries row.
describe(`upgrade from 0025 with counter rows in it (${engineName})`, () => {
  it('keeps the accounts\' rows and counts, and raises the deliveries row on the first outcome', async () => {
    const database = await emptyDatabase();
    await migrate(database, await migrationsUpTo(25, cleanups));
    await database.db.execute(sql`insert into accounts (id, webhook_secret) values ('acc-u', 's')`);
    await database.db.execute(sql`insert into watchlists (id, account_id, name, query) values ('wl-u', 'acc-u', 'U', '{}')`);
    await database.db.execute(sql`insert into subscriptions (id, account_id, watchlist_id, scope, type, trigger_type, status_reason)
      values ('su1', 'acc-u', 'wl-u', 'Watchlist', 'Crossing', 'Recurring', 'x')`);
    await database.db.execute(sql`insert into notifications (id, account_id, subscription_id, type, payload, dedupe_key) values ('nu1', 'acc-u', 'su1', 'price', '{}', 'ku1')`);
    await database.db.execute(sql`insert into deliveries (id, notification_id, position, channel_type, status) values ('du1', 'nu1', 0, 'Webhook', 'PENDING')`);
    const counters = () => database.rows<{ account_id: string; version: string; subscriptions: number }>(
      sql`select account_id, version::text, subscriptions from subscription_list_versions order by 1`);
    const before = await counters();
    expect(before.map((r) => r.account_id)).toEqual(['acc-u']);

    await migrate(database, MIGRATIONS_FOLDER);
    expect(await counters()).toEqual(before);
    await database.db.execute(sql`update deliveries set status = 'SENT' where id = 'du1'`);
    expect(await counters()).toEqual([...before, { account_id: 'acc-u deliveries', version: '1', subscriptions: 0 }]);
    await database.db.execute(sql`insert into subscriptions (id, account_id, watchlist_id, scope, type, trigger_type, status_reason)
      values ('su2', 'acc-u', 'wl-u', 'Watchlist', 'Crossing', 'Recurring', 'x')`);
    const [account] = await counters();
    expect([account!.version, account!.subscriptions]).toEqual([String(BigInt(before[0]!.version) + 1n), before[0]!.subscriptions + 1]);
  }, 120_000);
});

// A database migrated to 0021 with subscriptions already in it, upgraded to 0022/0023: the kept
// subscription counts (0023) start right, and the upgrade does not deadlock with a process still
// running the old code while it writes subscriptions (PostgreSQL, a rolling upgrade).
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, PGLITE_EXTENSIONS, type Database } from '../../src/db/index.js';
import { MIGRATIONS_FOLDER } from '../../src/db/migrate.js';
import { engineName } from '../support/db.js';
import { withDatabase } from '../support/global-setup.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** The migrations folder cut after `last` (journal idx). */
async function foldersUpTo(last: number): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'oddswatch-migrations-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await cp(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journal = JSON.parse(await readFile(path.join(dir, 'meta', '_journal.json'), 'utf8')) as { entries: { idx: number }[] };
  journal.entries = journal.entries.filter((e) => e.idx <= last);
  await writeFile(path.join(dir, 'meta', '_journal.json'), JSON.stringify(journal));
  return dir;
}

async function emptyDatabase(): Promise<Database> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const database = await openDatabase({ pglite: new PGlite({ extensions: PGLITE_EXTENSIONS }) });
    cleanups.push(() => database.close());
    return database;
  }
  const name = `oddswatch_upgrade_${randomBytes(4).toString('hex')}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const database = await openDatabase({ databaseUrl: withDatabase(url, name), maxConnections: 3 });
  cleanups.push(async () => {
    await database.close();
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
  });
  return database;
}

const migrateTo = async (database: Database, folder: string) => {
  if (database.kind === 'pglite') await migratePglite(database.db as never, { migrationsFolder: folder });
  else await migratePostgres(database.db as never, { migrationsFolder: folder });
};

describe(`upgrade from 0021 with subscriptions in it (${engineName})`, () => {
  it('0023 counts the subscriptions already there, raises their listing counters, and the triggers keep counting', async () => {
    const database = await emptyDatabase();
    await migrateTo(database, await foldersUpTo(21));
    await database.db.execute(sql`insert into accounts (id, webhook_secret) values ('acc-a', 's'), ('acc-b', 's'), ('acc-c', 's')`);
    await database.db.execute(sql`insert into watchlists (id, account_id, name, query) values ('wl-a', 'acc-a', 'A', '{}'), ('wl-b', 'acc-b', 'B', '{}')`);
    await database.db.execute(sql`insert into subscriptions (id, account_id, watchlist_id, scope, type, trigger_type, status_reason)
      select 'sa' || n, 'acc-a', 'wl-a', 'Watchlist', 'Crossing', 'Recurring', 'x' from generate_series(1, 3) n`);
    await database.db.execute(sql`insert into subscriptions (id, account_id, watchlist_id, scope, type, trigger_type, status_reason)
      values ('sb1', 'acc-b', 'wl-b', 'Watchlist', 'Crossing', 'Recurring', 'x')`);
    // acc-c: a listing counter row but no subscription.
    await database.db.execute(sql`insert into subscription_list_versions (account_id, version) values ('acc-c', 7)`);
    const before = await database.rows<{ account_id: string; version: string }>(sql`select account_id, version::text from subscription_list_versions order by 1`);

    await migrateTo(database, MIGRATIONS_FOLDER);
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
    await migrateTo(database, await foldersUpTo(21));
    await database.db.execute(sql`insert into accounts (id, webhook_secret) values ('acc-a', 's')`);
    await database.db.execute(sql`insert into watchlists (id, account_id, name, query) values ('wl-a', 'acc-a', 'A', '{}')`);
    const name = (await database.rows<{ d: string }>(sql`select current_database() as d`))[0]!.d;
    const old = postgres(withDatabase(process.env.DATABASE_URL!, name), { max: 1, onnotice: () => {} });
    cleanups.push(() => old.end());
    const writer = await old.reserve();
    await writer`begin`;
    // The old code's write has subscriptions locked (here a statement that matched no row; in the
    // old create statement, the time between its start and its trigger's upsert).
    await writer`update subscriptions set status_reason = status_reason where false`;
    const migrating = migrateTo(database, upgraded).then(
      () => 'migrated',
      (err: unknown) => `failed: ${String((err as { cause?: unknown }).cause ?? err)}`,
    );
    // The migration is waiting for the writer's lock before the writer goes on to its trigger.
    const observer = postgres(withDatabase(process.env.DATABASE_URL!, name), { max: 1, onnotice: () => {} });
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

// PGlite never checkpoints by itself (single-user PostgreSQL): the service runs the checkpoints a
// server would (src/db/pglite-checkpoints.ts), so the WAL a crash replays at the next start, and
// the WAL kept on disk, stay bounded instead of growing with uptime.
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/index.js';
import { startCheckpoints } from '../../src/db/pglite-checkpoints.js';
import { createTestDatabase, engineName } from '../support/db.js';
import { silent } from '../venue/support.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function testDatabase(): Promise<Database> {
  const database = await createTestDatabase({ migrated: false });
  cleanups.push(() => database.drop());
  await database.rows(sql`create table wal_filler (id int primary key, v text)`);
  return database;
}

/** WAL written since the last checkpoint's redo point, bytes. */
const pendingWal = async (database: Database) =>
  Number((await database.rows<{ pending: string }>(sql`select (pg_current_wal_lsn() - redo_lsn)::text as pending from pg_control_checkpoint()`))[0]!.pending);
const redoPoint = async (database: Database) => (await database.rows<{ redo: string }>(sql`select redo_lsn::text as redo from pg_control_checkpoint()`))[0]!.redo;
/** About 1 MB of WAL. */
const write = (database: Database, round: number) =>
  database.rows(sql`insert into wal_filler select i, repeat('x', 200) from generate_series(1, 3000) i
    on conflict (id) do update set v = excluded.v || ${String(round)}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(engineName === 'pglite')('PGlite checkpoints (pglite only: PostgreSQL has its own checkpointer)', () => {
  it('by itself PGlite never checkpoints, however much WAL is written', async () => {
    const database = await testDatabase();
    const redo = await redoPoint(database);
    for (let round = 0; round < 40; round++) await write(database, round);
    expect(await pendingWal(database)).toBeGreaterThan(20 * 1024 * 1024);
    expect(await redoPoint(database)).toBe(redo);
  });

  it('checkpoints once the WAL since the last one passes the bound, so the WAL a crash would replay stays under it', async () => {
    const database = await testDatabase();
    const checkpoints = startCheckpoints(database, { logger: silent, checkEveryMs: 10, walBytes: 4 * 1024 * 1024, maxIntervalMs: 3_600_000 });
    try {
      let most = 0;
      for (let round = 0; round < 40; round++) {
        await write(database, round);
        await sleep(15);
        most = Math.max(most, await pendingWal(database));
      }
      // The bound plus what a check interval lets through (a write of ~1 MB between two checks).
      expect(most).toBeLessThan(6 * 1024 * 1024);
    } finally {
      await checkpoints.stop();
    }
  });

  it('once stopped, it checkpoints no more', async () => {
    const database = await testDatabase();
    const checkpoints = startCheckpoints(database, { logger: silent, checkEveryMs: 10, walBytes: 1024 * 1024, maxIntervalMs: 3_600_000 });
    await checkpoints.stop();
    const redo = await redoPoint(database);
    for (let round = 0; round < 4; round++) await write(database, round);
    await sleep(100);
    expect(await redoPoint(database)).toBe(redo);
  });

  it('an idle database is not checkpointed again; a little WAL is, once the longest interval has passed', async () => {
    const database = await testDatabase();
    await database.rows(sql`checkpoint`);
    const checkpoints = startCheckpoints(database, { logger: silent, checkEveryMs: 10, walBytes: 64 * 1024 * 1024, maxIntervalMs: 150 });
    try {
      const idle = await redoPoint(database);
      await sleep(300);
      expect(await redoPoint(database)).toBe(idle);
      await write(database, 1);
      await sleep(400);
      expect(await redoPoint(database)).not.toBe(idle);
      expect(await pendingWal(database)).toBeLessThan(64 * 1024);
    } finally {
      await checkpoints.stop();
    }
  });
});

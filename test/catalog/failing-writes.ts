import { asc, gt, sql } from 'drizzle-orm';
import type { Database } from '../../src/db/client.js';
import { catalogChanges } from '../../src/db/schema/index.js';

// For the sync tests that stop a pass: a trigger that raises stands for the process dying at one
// of its writes.

export async function installFailingWrites(database: Database): Promise<void> {
  await database.rows(sql`create function test_fail_write() returns trigger language plpgsql as $$ begin raise exception 'the write failed'; end $$`);
}

/** Runs `fn` while every write to `table` matching `when` fails. */
export async function failingWrites(database: Database, table: string, op: 'insert' | 'update', when: string, fn: () => Promise<void>) {
  await database.rows(sql.raw(`create trigger test_fail before ${op} on ${table} for each row when (${when}) execute function test_fail_write()`));
  try {
    await fn();
  } finally {
    await database.rows(sql.raw(`drop trigger test_fail on ${table}`));
  }
}

/** A reader of the changes recorded since its previous call, as [kind, eventId, marketId]. */
export function changeLog(database: () => Database) {
  let lastId = 0;
  return async () => {
    const rows = await database().db.select().from(catalogChanges).where(gt(catalogChanges.id, lastId)).orderBy(asc(catalogChanges.id));
    lastId = rows.at(-1)?.id ?? lastId;
    return rows.map((r) => [r.kind, r.eventId, r.marketId]);
  };
}

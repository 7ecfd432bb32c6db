import { asc, gt, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { catalogChanges, changeReaderPositions } from '../db/schema/index.js';
import type { CatalogChange } from './catalog-notices.js';

// Reading the catalog change feed (`catalog_changes`, written by catalog sync) and keeping this
// reader's place in it (`change_reader_positions`).

/** Every engine process reads all changes under this one name; replays write nothing new (dedupe keys). */
const READER = 'engine';

/** The next changes after `afterId`, oldest first. */
export function readChanges(database: Database, afterId: number, limit: number): Promise<CatalogChange[]> {
  return database.db.select().from(catalogChanges).where(gt(catalogChanges.id, afterId)).orderBy(asc(catalogChanges.id)).limit(limit);
}

/** Where this reader left off; the first time, the newest change, stored at once so a stop before any change loses nothing. */
export async function storedPosition(database: Database): Promise<number> {
  const [stored] = await database.db.select().from(changeReaderPositions).where(eq(changeReaderPositions.reader, READER));
  if (stored) return stored.lastChangeId;
  const [row] = await database.rows<{ max: number | string | null }>(sql`select max(id) as max from catalog_changes`);
  const newest = Number(row?.max ?? 0);
  await savePosition(database, newest);
  return newest;
}

/** Never moves back: another engine process may be further on. */
export async function savePosition(database: Database, id: number): Promise<void> {
  await database.db
    .insert(changeReaderPositions)
    .values({ reader: READER, lastChangeId: id })
    .onConflictDoUpdate({
      target: changeReaderPositions.reader,
      set: { lastChangeId: sql`greatest(${changeReaderPositions.lastChangeId}, excluded.last_change_id)`, updatedAt: sql`now()` },
    });
}

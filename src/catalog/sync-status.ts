import { eq, sql } from 'drizzle-orm';
import type { Database, Queryable, Tx } from '../db/client.js';
import { catalogSyncStatus } from '../db/schema/index.js';

// The catalog sync's health, kept in the database because the sync leader and the engine that
// tells accounts about it may be different processes.

const ROW = 'catalog';

export interface SyncStatus {
  /** Since when every pass has failed; null while the sync works. */
  failingSinceMs: number | null;
  lastError: string | null;
}

export async function recordSyncSuccess(database: Database, at = new Date()): Promise<void> {
  await database.db
    .insert(catalogSyncStatus)
    .values({ id: ROW, failingSince: null, lastError: null, lastSuccessAt: at, updatedAt: at })
    .onConflictDoUpdate({ target: catalogSyncStatus.id, set: { failingSince: null, lastError: null, lastSuccessAt: at, updatedAt: at } });
}

/** The first failure of a run dates it; later ones keep that date and update the error. */
export async function recordSyncFailure(database: Database, error: string, at = new Date()): Promise<void> {
  await database.db
    .insert(catalogSyncStatus)
    .values({ id: ROW, failingSince: at, lastError: error, updatedAt: at })
    .onConflictDoUpdate({
      target: catalogSyncStatus.id,
      set: { failingSince: sql`coalesce(${catalogSyncStatus.failingSince}, excluded.failing_since)`, lastError: error, updatedAt: at },
    });
}

export async function readSyncStatus(database: Database): Promise<SyncStatus> {
  const [row] = await database.db.select().from(catalogSyncStatus).where(eq(catalogSyncStatus.id, ROW));
  return { failingSinceMs: row?.failingSince ? row.failingSince.getTime() : null, lastError: row?.lastError ?? null };
}

/** Whether the catalog's first fill finished (`filled_at`): until then each pass is a first fill. */
export async function firstFillDone(on: Queryable): Promise<boolean> {
  const [row] = await on.select({ filledAt: catalogSyncStatus.filledAt }).from(catalogSyncStatus).where(eq(catalogSyncStatus.id, ROW));
  return Boolean(row?.filledAt);
}

/** Marks the first fill finished, in the transaction that records the fill's pass. */
export async function recordFirstFill(tx: Tx, at: Date): Promise<void> {
  await tx
    .insert(catalogSyncStatus)
    .values({ id: ROW, filledAt: at, updatedAt: at })
    .onConflictDoUpdate({ target: catalogSyncStatus.id, set: { filledAt: sql`coalesce(${catalogSyncStatus.filledAt}, excluded.filled_at)` } });
}

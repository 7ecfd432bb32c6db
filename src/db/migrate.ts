import path from 'node:path';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import { sql } from 'drizzle-orm';
import type { Database } from './client.js';
import { MIGRATION_LOCK } from './coordination.js';
import { packageRoot } from '../paths.js';

export const MIGRATIONS_FOLDER = path.join(packageRoot(), 'drizzle');

/**
 * Applies pending migrations; concurrent starts on one PostgreSQL take turns. `folder`: another
 * migrations folder (tests upgrading from a cut of this one).
 */
export async function migrate(database: Database, folder = MIGRATIONS_FOLDER): Promise<void> {
  const config = { migrationsFolder: folder };
  await database.withAdvisoryLock(MIGRATION_LOCK, async () => {
    if (database.kind === 'pglite') await migratePglite(database.db as never, config);
    else await migratePostgres(database.db as never, config);
  });
}

/** Readiness: the database answers and every migration in the folder is applied. */
export async function migrationsApplied(database: Database, expected: number): Promise<boolean> {
  const rows = await database.rows<{ n: number }>(
    sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
  );
  return (rows[0]?.n ?? 0) >= expected;
}

import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { inject } from 'vitest';
import { openDatabase, PGLITE_EXTENSIONS, type Database } from '../../src/db/index.js';
import { PGLITE_TEMPLATE, withDatabase } from './global-setup.js';

export const engineName = process.env.DATABASE_URL ? 'postgres' : 'pglite';

/**
 * A migrated database of this test file's own: PGlite in memory, or a clone of the PostgreSQL
 * template. `migrated: false`: an empty one instead, for tests that migrate it themselves.
 */
export async function createTestDatabase({ migrated = true } = {}): Promise<Database & { drop(): Promise<void>; url?: string }> {
  const url = process.env.DATABASE_URL;
  const template = inject('pgTemplate');
  if (!url || (migrated && !template)) {
    const dump = migrated ? await readFile(PGLITE_TEMPLATE) : undefined;
    const pg = new PGlite({ ...(dump ? { loadDataDir: new Blob([dump]) } : {}), extensions: PGLITE_EXTENSIONS });
    const database = await openDatabase({ pglite: pg });
    return Object.assign(database, { drop: () => database.close() });
  }
  const name = `oddswatch_t${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(migrated ? `create database "${name}" template "${template}"` : `create database "${name}"`);
  const databaseUrl = withDatabase(url, name);
  const database = await openDatabase({ databaseUrl, maxConnections: 5 });
  return Object.assign(database, {
    /** The clone's own URL, for a second handle (a second engine process) on it. */
    url: databaseUrl,
    async drop() {
      await database.close();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    },
  });
}

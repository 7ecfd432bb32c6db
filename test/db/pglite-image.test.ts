import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { migrate, openDatabase } from '../../src/db/index.js';
import { ensureBuilt } from '../support/service-process.js';

// PGlite always, whatever DATABASE_URL says: the folder a first start makes. The build
// (bin/ensure-build.js) makes dist/pglite-image, the folder a new DATA_DIR starts as.
const dirs: string[] = [];
const newDir = async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'oddswatch-pglite-image-'));
  dirs.push(dir);
  return path.join(dir, 'data');
};

beforeAll(ensureBuilt, 330_000);
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const journal = async () => (await readdir(path.resolve(import.meta.dirname, '../../drizzle'))).filter((f) => f.endsWith('.sql')).length;

describe('a new PGlite folder', () => {
  it(
    'starts as a copy of the build\'s migrated image (every migration applied before migrate runs), with no account in it, private, and sized for one session',
    async () => {
      const dir = await newDir();
      const database = await openDatabase({ dataDir: dir });
      try {
        const [applied] = await database.rows<{ n: number }>(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
        expect(applied?.n).toBe(await journal());
        const [accounts] = await database.rows<{ n: number }>(sql`select count(*)::int as n from accounts`);
        expect(accounts?.n).toBe(0);
        const [buffers] = await database.rows<{ v: string }>(sql`select current_setting('shared_buffers') as v`);
        expect(buffers?.v).toBe('16MB');
        await migrate(database); // nothing left to apply, and no error
      } finally {
        await database.close();
      }
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      expect((await stat(path.join(dir, 'PG_VERSION'))).mode & 0o777).toBe(0o600);
    },
    120_000,
  );

  it(
    'without the image runs initdb and is migrated by migrate',
    async () => {
      const dir = await newDir();
      const database = await openDatabase({ dataDir: dir, fromImage: false });
      try {
        const [schema] = await database.rows<{ n: number }>(sql`select count(*)::int as n from pg_namespace where nspname = 'drizzle'`);
        expect(schema?.n).toBe(0);
        await migrate(database);
        const [applied] = await database.rows<{ n: number }>(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
        expect(applied?.n).toBe(await journal());
      } finally {
        await database.close();
      }
    },
    180_000,
  );
});

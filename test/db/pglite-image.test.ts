import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { migrate, openDatabase, PGLITE_EXTENSIONS, type Database } from '../../src/db/index.js';
import { insertAccountWithToken } from '../../src/services/accounts/index.js';
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

/** Every folder and file under `root` not 0700 / 0600, as "mode path". */
async function notPrivate(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const e of await readdir(root, { recursive: true, withFileTypes: true })) {
    const mode = (await stat(path.join(e.parentPath, e.name))).mode & 0o777;
    if (mode !== (e.isDirectory() ? 0o700 : 0o600)) found.push(`${mode.toString(8)} ${path.relative(root, path.join(e.parentPath, e.name))}`);
  }
  return found;
}

const setting = async (database: Database, name: string) =>
  (await database.rows<{ v: string }>(sql`select current_setting(${name}) as v`))[0]?.v;
const databases = async (database: Database) =>
  (await database.rows<{ datname: string }>(sql`select datname from pg_database order by datname`)).map((r) => r.datname);

const applied = async (database: Database) =>
  (await database.rows<{ n: number }>(sql`select count(*)::int as n from drizzle.__drizzle_migrations`))[0]?.n;
const journal = async () => (await readdir(path.resolve(import.meta.dirname, '../../drizzle'))).filter((f) => f.endsWith('.sql')).length;

describe('a new PGlite folder', () => {
  it(
    'starts as a copy of the build\'s migrated image (every migration applied before migrate runs), with no account in it, private, and sized for one session',
    async () => {
      const dir = await newDir();
      const database = await openDatabase({ dataDir: dir });
      try {
        expect(await applied(database)).toBe(await journal());
        const [accounts] = await database.rows<{ n: number }>(sql`select count(*)::int as n from accounts`);
        expect(accounts?.n).toBe(0);
        const [buffers] = await database.rows<{ v: string }>(sql`select current_setting('shared_buffers') as v`);
        expect(buffers?.v).toBe('16MB');
        await migrate(database); // nothing left to apply, and no error
        // Private as copied: the first start does not walk the folder to chmod its files.
        expect(await notPrivate(dir)).toEqual([]);
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
        expect(await applied(database)).toBe(await journal());
      } finally {
        await database.close();
      }
    },
    180_000,
  );

  it(
    'is small: no template databases (only `postgres`, the one PGlite opens), WAL in 1 MB segments with the usual WAL sizes, and it takes writes past several segments and reopens with them',
    async () => {
      const dir = await newDir();
      const database = await openDatabase({ dataDir: dir });
      try {
        expect(await databases(database)).toEqual(['postgres']);
        expect(await setting(database, 'wal_segment_size')).toBe('1MB');
        // The image's build ran with 2MB (its postgresql.conf says so); every start gives these.
        expect(await setting(database, 'min_wal_size')).toBe('80MB');
        expect(await setting(database, 'max_wal_size')).toBe('1GB');
        expect((await readdir(path.join(dir, 'base'))).length).toBe(1);
        expect((await readdir(path.join(dir, 'pg_wal'), { withFileTypes: true })).filter((e) => e.isFile()).length).toBeLessThanOrEqual(2);
        // ~4 MB of WAL: PostgreSQL switches segments four times and more on the way.
        await database.rows(sql`create table filler (n int, pad text)`);
        await database.rows(sql`insert into filler select n, repeat('x', 200) from generate_series(1, 15000) n`);
        await database.rows(sql`checkpoint`);
      } finally {
        await database.close();
      }
      const reopened = await openDatabase({ dataDir: dir });
      try {
        const [filler] = await reopened.rows<{ n: number }>(sql`select count(*)::int as n from filler`);
        expect(filler?.n).toBe(15000);
        const segments = (await readdir(path.join(dir, 'pg_wal'), { withFileTypes: true })).filter((e) => e.isFile());
        for (const segment of segments) expect((await stat(path.join(dir, 'pg_wal', segment.name))).size).toBe(1024 * 1024);
      } finally {
        await reopened.close();
      }
    },
    120_000,
  );

  it(
    'made from an earlier image (16 MB WAL segments, template databases) still opens, migrates and takes writes',
    async () => {
      const dir = await newDir();
      // What the build made before: initdb with only the memory settings, then the migrations.
      const earlier = await PGlite.create(dir, {
        initDbStartParams: ['--set', 'shared_buffers=16MB', '--set', 'max_connections=10'],
        extensions: PGLITE_EXTENSIONS,
      });
      const made = await openDatabase({ dataDir: dir, pglite: earlier });
      await migrate(made);
      await made.close();

      const database = await openDatabase({ dataDir: dir });
      try {
        expect(await databases(database)).toEqual(['postgres', 'template0', 'template1']);
        expect(await setting(database, 'wal_segment_size')).toBe('16MB');
        expect(await setting(database, 'max_wal_size')).toBe('1GB');
        await migrate(database);
        expect(await applied(database)).toBe(await journal());
        const account = await insertAccountWithToken(database.db, { name: 'admin', isAdmin: true });
        const [accounts] = await database.rows<{ id: string }>(sql`select id from accounts`);
        expect(accounts?.id).toBe(account.userId);
      } finally {
        await database.close();
      }
      expect(await notPrivate(dir)).toEqual([]);
    },
    180_000,
  );
});

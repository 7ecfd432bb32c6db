import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { migrate, openDatabase } from '../../src/db/index.js';

// PGlite always, whatever DATABASE_URL says: these are the embedded server's own settings.
describe('the PGlite folder the service opens', () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const settings = async (database: Awaited<ReturnType<typeof openDatabase>>) =>
    Object.fromEntries(
      (await database.rows<{ name: string; value: string }>(sql`select name, current_setting(name) as value from pg_settings where name in ('shared_buffers', 'max_connections')`)).map(
        (r) => [r.name, r.value],
      ),
    );

  it(
    'is made and reopened sized for one session (16MB of shared buffers, not 128MB), older folders included, and migrates',
    async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'oddswatch-pglite-settings-'));
      const fresh = await openDatabase({ dataDir: dir, fromImage: false }); // initdb's own settings (the image: pglite-image.test.ts)
      await migrate(fresh);
      expect(await settings(fresh)).toEqual({ shared_buffers: '16MB', max_connections: '10' });
      await fresh.close();
      expect(await readFile(path.join(dir, 'postgresql.conf'), 'utf8')).toMatch(/^shared_buffers = 16MB/m);

      // A folder made before: initdb wrote PGlite's defaults into its postgresql.conf.
      await appendFile(path.join(dir, 'postgresql.conf'), '\nshared_buffers = 128MB\nmax_connections = 100\n');
      const older = await openDatabase({ dataDir: dir });
      expect(await settings(older)).toEqual({ shared_buffers: '16MB', max_connections: '10' });
      await older.close();
    },
    180_000,
  );
});

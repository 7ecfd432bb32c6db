import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/db/index.js';
import { openPgliteFolder } from '../../src/db/pglite-folder.js';
import { compilePgliteWasm } from '../../src/db/pglite-wasm.js';
import { ensureBuilt } from '../support/service-process.js';

// PGlite always, whatever DATABASE_URL says: main.ts compiles PGlite's WebAssembly before the
// folder's open starts and hands the module to it.
const dirs: string[] = [];
beforeAll(ensureBuilt, 330_000);
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("PGlite's WebAssembly compiled ahead of the open", () => {
  it('is a compiled module', async () => {
    expect(Object.prototype.toString.call(await compilePgliteWasm())).toBe('[object WebAssembly.Module]');
  });

  it(
    'opens a folder that answers queries, pg_trgm search included, and reopens it',
    async () => {
      const dir = path.join(await mkdtemp(path.join(tmpdir(), 'oddswatch-pglite-wasm-')), 'data');
      dirs.push(path.dirname(dir));
      for (const open of ['first', 'later']) {
        const database = await openDatabase({ dataDir: dir, pglite: await openPgliteFolder(dir, true, compilePgliteWasm()) });
        try {
          const [row] = await database.rows<{ similar: boolean; applied: number }>(
            sql`select similarity('oddswatch', 'odds watch') > 0.3 as similar, (select count(*)::int from drizzle.__drizzle_migrations) as applied`,
          );
          expect(row, open).toEqual({ similar: true, applied: expect.any(Number) as number });
          expect(row!.applied, open).toBeGreaterThan(0);
        } finally {
          await database.close();
        }
      }
    },
    120_000,
  );

  it(
    'left out (a module that came to nothing), PGlite compiles its own',
    async () => {
      const dir = path.join(await mkdtemp(path.join(tmpdir(), 'oddswatch-pglite-wasm-')), 'data');
      dirs.push(path.dirname(dir));
      const database = await openDatabase({ dataDir: dir, pglite: await openPgliteFolder(dir, true, Promise.resolve(undefined)) });
      try {
        expect(await database.rows(sql`select 1 as one`)).toEqual([{ one: 1 }]);
      } finally {
        await database.close();
      }
    },
    120_000,
  );
});

// Passes that rewrite every market's volume keep the catalog's tables small: drizzle/0031 leaves room
// on each page, so a row's new version mostly stays on its page (a HOT update, no new index entry)
// and the old one is freed when the page is next read, with no vacuum (PGlite runs none).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncCatalogOnce } from '../../src/catalog/index.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { silent } from '../venue/support.js';
import { event, fakeGamma, market } from './scripted-venue.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

/**
 * The table's rows and its btree indexes, bytes. Not its GIN indexes: their pending list takes
 * every new entry until it passes 4 MB, whatever the updates (docs/decisions.md).
 */
const sizeOf = async (table: string) =>
  Number((await env.database.rows<{ bytes: string }>(sql`select sum(pg_relation_size(c.oid))::text as bytes from pg_class c
    left join pg_index i on i.indexrelid = c.oid left join pg_am a on a.oid = c.relam
    where (c.oid = ${table}::regclass or i.indrelid = ${table}::regclass) and coalesce(a.amname, 'heap') <> 'gin'`))[0]!.bytes);

// PGlite only: on PostgreSQL a page is freed of old versions only once no transaction anywhere on
// the server may still see them, so the size there depends on what else runs (other test files'
// open transactions held it at 3.3 times in CI), and autovacuum does the rest.
describe.runIf(engineName === 'pglite')('catalog sync: rows rewritten pass after pass (pglite only: PostgreSQL frees old versions by its server-wide horizon and autovacuum)', () => {
  it('forty passes that change every volume leave the catalog tables at most 3 times their first size', async () => {
    const { venue, gamma } = fakeGamma();
    const markets = (pass: number) => (e: number) => Array.from({ length: 3 }, (_, m) => market(`h${e}m${m}`, { volume: 1000 + pass, volume24hr: pass, liquidity: pass }));
    const listing = (pass: number) => Array.from({ length: 100 }, (_, e) => event(`h${e}`, markets(pass)(e), { volume: 5000 + pass }));
    let at = Date.UTC(2026, 1, 1);
    venue.open = listing(0);
    await syncCatalogOnce({ database: env.database, gamma, logger: silent, now: () => new Date(at) });
    const first = { markets: await sizeOf('catalog_markets'), events: await sizeOf('catalog_events') };
    for (let pass = 1; pass <= 40; pass++) {
      venue.open = listing(pass);
      at += 60_000;
      await syncCatalogOnce({ database: env.database, gamma, logger: silent, now: () => new Date(at) });
    }
    const [row] = await env.database.rows<{ volume: number }>(sql`select volume from catalog_markets where id = 'h7m1'`);
    expect(row!.volume).toBe(1040);
    // Measured: 2.4 times with room on the pages, 3.9 times with full pages (fillfactor 100); both
    // settle within ten passes.
    expect(await sizeOf('catalog_markets')).toBeLessThanOrEqual(first.markets * 3);
    expect(await sizeOf('catalog_events')).toBeLessThanOrEqual(first.events * 3);
  }, 120_000);
});

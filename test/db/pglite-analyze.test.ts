// PGlite has no autovacuum, so nothing analyzes its tables: the service applies PostgreSQL's
// autoanalyze rule itself (src/db/pglite-analyze.ts), which also makes the named statements plan
// again for the tables' sizes now (test/outbox/plans-over-history.test.ts is what that buys).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/index.js';
import { analyzeChangedTables, startAnalyze } from '../../src/db/pglite-analyze.js';
import { createTestDatabase, engineName } from '../support/db.js';
import { silent } from '../venue/support.js';
import { waitFor } from '../support/wait.js';

let database: Database & { drop(): Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase({ migrated: false });
  await database.rows(sql`create table analyze_probe (id int primary key, v text)`);
});
afterAll(async () => {
  await database?.drop();
});

const insert = (from: number, to: number) => database.rows(sql`insert into analyze_probe select i, 'x' from generate_series(${from}::int, ${to}::int) i`);
const stats = async () =>
  (
    await database.rows<{ analyzed: boolean; rows: number }>(sql`
      select s.last_analyze is not null as analyzed, c.reltuples::int as rows
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = 'analyze_probe'`)
  )[0]!;

describe.runIf(engineName === 'pglite')('PGlite analyze (pglite only: PostgreSQL has autovacuum)', () => {
  it('analyzes a table once 50 rows and a tenth of it have changed since its last analyze, not before', async () => {
    await insert(1, 40);
    expect(await analyzeChangedTables(database, 0)).not.toContain('analyze_probe');
    expect((await stats()).analyzed).toBe(false);

    await insert(41, 1000);
    expect(await analyzeChangedTables(database, 0)).toContain('analyze_probe');
    expect(await stats()).toEqual({ analyzed: true, rows: 1000 });

    // A tenth of 1,000 and 50 more: 140 changed rows are not enough, 160 are.
    await insert(1001, 1140);
    expect(await analyzeChangedTables(database, 0)).not.toContain('analyze_probe');
    await insert(1141, 1160);
    // ... but not again within the interval since its last analyze (the service's one connection).
    expect(await analyzeChangedTables(database, 60_000)).not.toContain('analyze_probe');
    expect(await analyzeChangedTables(database, 0)).toContain('analyze_probe');
    expect((await stats()).rows).toBe(1160);
  });

  it('the loop analyzes a grown table on its own, and does nothing once stopped', async () => {
    const loop = startAnalyze(database, { logger: silent, checkEveryMs: 50, minIntervalMs: 0 });
    try {
      await insert(2001, 4000);
      await waitFor(async () => (await stats()).rows === 3160, { message: 'the loop analyzing analyze_probe' });
    } finally {
      await loop.stop();
    }
    await insert(4001, 9000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await stats()).rows).toBe(3160);
  });
});

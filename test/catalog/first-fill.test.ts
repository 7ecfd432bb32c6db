import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, sql } from 'drizzle-orm';
import { syncCatalogOnce } from '../../src/catalog/index.js';
import { firstFillDone } from '../../src/catalog/sync-status.js';
import { migrate, MIGRATIONS_FOLDER } from '../../src/db/migrate.js';
import { migrationsUpTo } from '../support/migrations.js';
import { catalogEvents, catalogMarkets } from '../../src/db/schema/index.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { createTestDatabase, engineName } from '../support/db.js';
import { silent } from '../venue/support.js';
import { changeLog, failingWrites, installFailingWrites } from './failing-writes.js';
import { event, fakeGamma, market } from './scripted-venue.js';

// The first fill of an empty catalog is written in batches (src/catalog/first-fill.ts) and records
// no openings; until a fill finishes (catalog_sync_status.filled_at) every pass is a first fill.

let env: TestEnv;
const { venue, gamma } = fakeGamma();
const sync = () => syncCatalogOnce({ database: env.database, gamma, logger: silent });
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  env = await createTestEnv();
  await installFailingWrites(env.database);
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await env?.close();
});

const newChanges = changeLog(() => env.database);
const stored = async () => ({
  events: (await env.database.db.select({ n: count() }).from(catalogEvents))[0]!.n,
  markets: (await env.database.db.select({ n: count() }).from(catalogMarkets))[0]!.n,
});
// Three events of 60 markets: three batches of the fill (REFRESH_BATCH_MARKETS is 100).
const big = (id: string) => event(id, Array.from({ length: 60 }, (_, i) => market(`${id}-${i}`)));

describe(`catalog sync: the first fill (${engineName})`, () => {
  it('an empty listing fills nothing: the catalog still waits for its first fill', async () => {
    venue.open = [];
    expect((await sync()).firstSync).toBe(true);
    expect(await firstFillDone(env.database.db)).toBe(false);
  });

  it('a fill stopped half-way is finished by the next pass without telling the rest of the venue as new', async () => {
    venue.open = [big('f1'), big('f2'), big('f3')];
    // The process dies at the last batch's markets: the batches before it are stored.
    await failingWrites(env.database, 'catalog_markets', 'insert', "new.event_id = 'f3'", async () => {
      await expect(sync()).rejects.toThrow();
    });
    expect(await stored()).toEqual({ events: 2, markets: 120 });
    expect(await firstFillDone(env.database.db)).toBe(false);

    // Meanwhile a market the stopped fill stored resolves: that is a change, told once.
    const f1 = big('f1');
    f1.markets[0] = market('f1-0', { umaResolutionStatus: 'proposed' });
    venue.open = [f1, big('f2'), big('f3')];
    const finished = await sync();
    expect(finished.firstSync).toBe(true);
    expect(await newChanges()).toEqual([['resolution', 'f1', 'f1-0']]);
    expect(await stored()).toEqual({ events: 3, markets: 180 });
    expect(await firstFillDone(env.database.db)).toBe(true);

    venue.open = [f1, big('f2'), big('f3'), event('f4', [market('f4x')])];
    const next = await sync();
    expect(next.firstSync).toBe(false);
    expect(await newChanges()).toEqual([
      ['new_event', 'f4', null],
      ['new_market', 'f4', 'f4x'],
    ]);
  });
});

describe(`upgrade to 0028 (${engineName})`, () => {
  it.each([
    ['a catalog filled before it counts as filled', true],
    ['an empty catalog still waits for its first fill', false],
  ])('%s', async (_name, withRows) => {
    const database = await createTestDatabase({ migrated: false });
    cleanups.push(() => database.drop());
    await migrate(database, await migrationsUpTo(27, cleanups));
    if (withRows) {
      await database.rows(sql`insert into catalog_events (id, slug, title) values ('u1', 'u1', 'Filled before')`);
      // The sync's health row is there already on a database that has synced: 0028 updates it.
      await database.rows(sql`insert into catalog_sync_status (id, last_success_at, updated_at) values ('catalog', now(), now())`);
    }
    await migrate(database, MIGRATIONS_FOLDER);
    expect(await firstFillDone(database.db)).toBe(withRows);
  });
});

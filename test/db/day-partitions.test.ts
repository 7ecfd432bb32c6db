// The sample tables as one partition per UTC day (drizzle/0030, src/db/day-partitions.ts): an
// upgrade keeps the rows already stored, old days go whole, and the tables stop growing on disk
// while the live rows stay the same (PGlite never vacuums: before 0030 they grew pass after pass).
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/index.js';
import { syncCatalogOnce } from '../../src/catalog/index.js';
import { DAY_MS, keepDays } from '../../src/db/day-partitions.js';
import { migrate, MIGRATIONS_FOLDER } from '../../src/db/migrate.js';
import { marketSamples } from '../../src/db/schema/index.js';
import { pruneSamples, writeSamples } from '../../src/runner/price-samples.js';
import { event, fakeGamma, market } from '../catalog/scripted-venue.js';
import { createTestDatabase, engineName } from '../support/db.js';
import { migrationsUpTo } from '../support/migrations.js';
import { silent } from '../venue/support.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function testDatabase(migrated: boolean): Promise<Database & { url?: string }> {
  const database = await createTestDatabase({ migrated });
  cleanups.push(() => database.drop());
  return database;
}

const partitionsOf = async (database: Database, table: string) =>
  (await database.rows<{ name: string }>(sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = ${table}::regclass order by 1`)).map((r) => r.name);

const sizeOf = async (database: Database, table: string) =>
  Number((await database.rows<{ bytes: string }>(sql`select sum(pg_total_relation_size(c.oid))::text as bytes from pg_class c
    where c.oid = ${table}::regclass or c.oid in (select inhrelid from pg_inherits where inhparent = ${table}::regclass)`))[0]!.bytes);

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');

describe(`day-partitioned samples (${engineName})`, () => {
  it('0030 keeps the samples already stored: the old table becomes the partition of everything before tomorrow, later rows get their days', async () => {
    const database = await testDatabase(false);
    await migrate(database, await migrationsUpTo(29, cleanups));
    // The migration splits at its own UTC midnight: not run across one.
    if (DAY_MS - (Date.now() % DAY_MS) < 10_000) await new Promise((resolve) => setTimeout(resolve, DAY_MS - (Date.now() % DAY_MS) + 100));
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    await database.db.execute(sql`insert into market_samples (market_id, at, volume, liquidity, price) values
      ('m1', ${new Date(today - DAY_MS).toISOString()}, 1, 1, 0.1), ('m1', ${new Date(today + 3_600_000).toISOString()}, 2, 1, 0.2),
      ('m1', ${new Date(today + 2 * DAY_MS + 60_000).toISOString()}, 3, 1, 0.3)`);
    await database.db.execute(sql`insert into price_samples (token_id, minute, price) values
      ('t1', ${new Date(today - 3 * DAY_MS).toISOString()}, 0.4), ('t1', ${new Date(today).toISOString()}, 0.5)`);

    await migrate(database, MIGRATIONS_FOLDER);
    const tomorrow = today + DAY_MS;
    expect(await partitionsOf(database, 'market_samples')).toEqual([`market_samples_before_${utcDay(tomorrow)}`, `market_samples_d${utcDay(today + 2 * DAY_MS)}`]);
    expect(await partitionsOf(database, 'price_samples')).toEqual([`price_samples_before_${utcDay(tomorrow)}`]);
    const samples = await database.db.select().from(marketSamples).orderBy(marketSamples.at);
    expect(samples.map((s) => s.volume)).toEqual([1, 2, 3]);
    expect((await database.rows<{ n: number }>(sql`select count(*)::int as n from price_samples`))[0]!.n).toBe(2);

    // The service goes on writing today's and tomorrow's samples, and primary keys still hold across the partitions.
    await keepDays(database.db, 'market_samples', { days: [today, tomorrow], dropBeforeMs: -Infinity });
    await database.db.insert(marketSamples).values({ marketId: 'm1', at: new Date(tomorrow + 60_000), volume: 4 });
    await database.db.insert(marketSamples).values({ marketId: 'm1', at: new Date(today + 3_600_000), volume: 9 }).onConflictDoNothing();
    expect((await database.db.select().from(marketSamples).orderBy(marketSamples.at)).map((s) => s.volume)).toEqual([1, 2, 4, 3]);

    // Once tomorrow is past the retention, the old table goes whole.
    await keepDays(database.db, 'market_samples', { days: [tomorrow + 3 * DAY_MS], dropBeforeMs: tomorrow });
    expect(await partitionsOf(database, 'market_samples')).toEqual([
      `market_samples_d${utcDay(tomorrow)}`, `market_samples_d${utcDay(tomorrow + DAY_MS)}`, `market_samples_d${utcDay(tomorrow + 3 * DAY_MS)}`,
    ]);
    expect((await database.db.select().from(marketSamples).orderBy(marketSamples.at)).map((s) => s.volume)).toEqual([4, 3]);
  }, 120_000);

  it('0030 on empty tables leaves no partition of old rows', async () => {
    const database = await testDatabase(true);
    expect(await partitionsOf(database, 'market_samples')).toEqual([]);
    expect(await partitionsOf(database, 'price_samples')).toEqual([]);
  });

  it('makes the days asked for, once, and drops only days wholly before the cutoff', async () => {
    const database = await testDatabase(true);
    const day = Date.UTC(2026, 2, 10);
    await keepDays(database.db, 'price_samples', { days: [day + 5 * 3_600_000, day + DAY_MS + 1], dropBeforeMs: -Infinity });
    await keepDays(database.db, 'price_samples', { days: [day, day + DAY_MS], dropBeforeMs: -Infinity });
    expect(await partitionsOf(database, 'price_samples')).toEqual(['price_samples_d20260310', 'price_samples_d20260311']);
    // A cutoff inside 11 March keeps it: part of it is still within the retention.
    await keepDays(database.db, 'price_samples', { days: [day + DAY_MS], dropBeforeMs: day + DAY_MS + 1 });
    expect(await partitionsOf(database, 'price_samples')).toEqual(['price_samples_d20260311']);
  });

  it.runIf(engineName === 'postgres')('processes sharing a PostgreSQL database make the same day at once without an error (postgres only)', async () => {
    const database = await testDatabase(true);
    const day = Date.UTC(2026, 5, 1);
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => keepDays(database.db, 'market_samples', { days: [day, day + (i % 2) * DAY_MS], dropBeforeMs: day - DAY_MS })),
    );
    expect(await partitionsOf(database, 'market_samples')).toEqual(['market_samples_d20260601', 'market_samples_d20260602']);
  });

  it('a write makes only the days of its samples, and skips samples past the retention (a clock stepped back)', async () => {
    const database = await testDatabase(true);
    const now = Date.UTC(2026, 4, 20, 12);
    await writeSamples(database.db, [
      { token: 't', minuteMs: now - 8 * DAY_MS, price: 0.1 },
      { token: 't', minuteMs: now - 5 * DAY_MS, price: 0.2 },
      { token: 't', minuteMs: now, price: 0.3 },
    ], now);
    expect(await partitionsOf(database, 'price_samples')).toEqual(['price_samples_d20260515', 'price_samples_d20260520']);
    expect((await database.rows<{ price: number }>(sql`select price from price_samples order by minute`)).map((r) => r.price)).toEqual([0.2, 0.3]);
    // The same minute again (two engines during a hand-over): the day's primary key holds, the later write wins.
    await writeSamples(database.db, [{ token: 't', minuteMs: now, price: 0.4 }], now);
    expect((await database.rows<{ price: number }>(sql`select price from price_samples order by minute`)).map((r) => r.price)).toEqual([0.2, 0.4]);
  });

  it.runIf(engineName === 'postgres')('a reader with a transaction open neither stops a day being made nor holds a drop for more than a second (postgres only)', async () => {
    const database = await testDatabase(true);
    const now = Date.UTC(2026, 6, 10, 12);
    await pruneSamples(database.db, now - 8 * DAY_MS); // 2 and 3 July
    const reader = postgres(database.url!, { max: 1, onnotice: () => {} });
    cleanups.push(() => reader.end());
    const open = await reader.reserve();
    await open`begin`;
    await open`select count(*) from price_samples`;
    try {
      // Made while the reader holds the table: an attach does not wait for it.
      await writeSamples(database.db, [{ token: 't', minuteMs: now, price: 0.5 }], now);
      // All of 2 July is past the retention: its drop waits for the reader, gives up after 1 s, and writes go on.
      const started = Date.now();
      await expect(pruneSamples(database.db, now)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(5_000);
      // Tomorrow's day was made before the drop gave up, and stays.
      expect(await partitionsOf(database, 'price_samples')).toContain('price_samples_d20260711');
      await writeSamples(database.db, [{ token: 't', minuteMs: now + 60_000, price: 0.6 }], now);
    } finally {
      await open`rollback`;
      open.release();
    }
    await pruneSamples(database.db, now);
    expect(await partitionsOf(database, 'price_samples')).toEqual(['price_samples_d20260703', 'price_samples_d20260710', 'price_samples_d20260711']);
  }, 30_000);

  it('eight days of sync passes keep the market samples at the size of their retention', async () => {
    const database = await testDatabase(true);
    const { venue, gamma } = fakeGamma();
    venue.open = Array.from({ length: 20 }, (_, e) => event(`w${e}`, Array.from({ length: 10 }, (_, m) => market(`w${e}m${m}`))));
    const start = Date.UTC(2026, 3, 1);
    const step = 2 * 3_600_000; // a pass every 2 h: 12 a day, 2,400 samples
    const sizes: number[] = [];
    for (let at = start; at < start + 8 * DAY_MS; at += step) {
      await syncCatalogOnce({ database, gamma, logger: silent, now: () => new Date(at) });
      if ((at - start) % DAY_MS === DAY_MS - step) sizes.push(await sizeOf(database, 'market_samples'));
    }
    // From the fourth day on, each day adds a partition and drops one: the same size, day after day
    // (row by row deletes grew it by a day's samples every day on PGlite).
    const steady = sizes.slice(3);
    expect(Math.max(...steady)).toBeLessThanOrEqual(Math.min(...steady) * 1.05);
    expect(await partitionsOf(database, 'market_samples')).toEqual(['d20260406', 'd20260407', 'd20260408', 'd20260409'].map((d) => `market_samples_${d}`));
  }, 120_000);

  it('eight days of price samples written and pruned as an engine does keep their table at the size of its retention', async () => {
    const database = await testDatabase(true);
    const start = Date.UTC(2026, 3, 1);
    const hour = 3_600_000;
    const sizes: number[] = [];
    for (let at = start; at < start + 12 * DAY_MS; at += hour) {
      await writeSamples(database.db, Array.from({ length: 100 }, (_, t) => ({ token: `t${t}`, minuteMs: at, price: 0.5 })), at);
      if ((at - start) % DAY_MS === 0) await pruneSamples(database.db, at);
      if ((at - start) % DAY_MS === DAY_MS - hour) sizes.push(await sizeOf(database, 'price_samples'));
    }
    // Seven days kept, then steady.
    const steady = sizes.slice(8);
    expect(Math.max(...steady)).toBeLessThanOrEqual(Math.min(...steady) * 1.05);
    expect((await partitionsOf(database, 'price_samples')).length).toBeLessThanOrEqual(9);
  }, 120_000);
});

import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { drizzleClientOf } from '../../src/db/client.js';

// drizzle's parsers are set once on the PGlite instance instead of sent with every query: every
// type drizzle overrides, and the ones it leaves to PGlite, come back exactly as before.
const plain = new PGlite();
const tuned = new PGlite();
afterAll(async () => {
  await plain.close();
  await tuned.close();
});

const query = sql`select
  '2026-11-24 12:00:00.123456'::timestamp as ts, '2026-11-24 12:00:00.5+02'::timestamptz as tstz,
  '1 day 02:03:04'::interval as iv, '2026-11-24'::date as d,
  array[1.5, 2.25]::numeric[] as nums, array['2026-01-01 00:00'::timestamp] as tss,
  array['2026-01-01 00:00+00'::timestamptz] as tstzs, array['1 hour'::interval] as ivs, array['2026-01-02'::date] as ds,
  12345678901::int8 as big, 1.5::float8 as f, 2.5::numeric as n, true as b, '{"a":[1,2]}'::jsonb as j, array[1,2]::int[] as ints,
  now() - now() as zero, null::timestamptz as nothing`;

describe('PGlite parsers set once for drizzle', () => {
  it('reads every type as drizzle with per-query parsers did, in queries and in transactions', async () => {
    const before = await drizzle(plain).execute(query);
    const db = drizzle(drizzleClientOf(tuned) as PGlite);
    const after = await db.execute(query);
    expect(after.rows).toEqual(before.rows);
    expect(typeof (after.rows[0] as { tstz: unknown }).tstz).toBe('string');
    const inTx = await db.transaction(async (tx) => tx.execute(query));
    expect(inTx.rows).toEqual(before.rows);
  });
});

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatementShapes } from '../../src/db/statement-shapes.js';
import { createTestDatabase, engineName } from '../support/db.js';

// A statement built once per shape (src/db/statement-shapes.ts): each call runs with its own
// values (none frozen into the text), nulls included, in a transaction or not, past the number of
// shapes it keeps; on PGlite one named statement a shape.
let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
  await database.rows(sql`create table shape_probe (id text primary key, n int, doc jsonb)`);
});
afterAll(async () => database.drop());

let builds = 0;
const shapes = new StatementShapes<Record<string, unknown>>((shape) => {
  builds++;
  const width = Number(shape);
  const extra = Array.from({ length: width }, (_, i) => sql`, ${sql.placeholder(`extra${i}`)}::int as ${sql.identifier(`extra${i}`)}`);
  return sql`insert into shape_probe (id, n, doc) values (${sql.placeholder('id')}, ${sql.placeholder('n')}::int, ${sql.placeholder('doc')}::jsonb)
    returning id, n, doc${sql.join(extra)}`;
}, 4);

describe(`statements built once per shape (${engineName})`, () => {
  it('runs each call with its own values, nulls included, building a shape once', async () => {
    builds = 0;
    for (let i = 0; i < 6; i++) {
      const rows = await shapes.rows(database.db, '1', { id: `s${i}`, n: i % 2 ? null : i, doc: JSON.stringify({ i }), extra0: i * 10 });
      expect(rows).toEqual([{ id: `s${i}`, n: i % 2 ? null : i, doc: { i }, extra0: i * 10 }]);
    }
    expect(builds).toBe(1);
    if (engineName === 'pglite') {
      const [kept] = await database.rows<{ n: number }>(sql`select count(*)::int as n from pg_prepared_statements where statement like '%into shape_probe%'`);
      expect(kept!.n).toBe(1);
    }
  });

  it('runs inside the transaction it is given, which a rollback undoes', async () => {
    const failed = await database.db
      .transaction(async (tx) => {
        expect(await shapes.rows(tx, '0', { id: 'in-tx', n: 1, doc: null })).toEqual([{ id: 'in-tx', n: 1, doc: null }]);
        throw new Error('roll back');
      })
      .catch((err: unknown) => err);
    expect((failed as Error).message).toBe('roll back');
    expect(await database.rows(sql`select id from shape_probe where id = 'in-tx'`)).toEqual([]);
  });

  it('builds a shape again once it was let go past the limit, with the same answers', async () => {
    builds = 0;
    // Four kept: shapes 2 to 7 are new, and 2 is let go by the time 6 comes.
    for (let width = 2; width < 8; width++) await shapes.rows(database.db, String(width), { id: `w${width}`, n: width, doc: null, ...extras(width) });
    expect(builds).toBe(6);
    const rows = await shapes.rows(database.db, '2', { id: 'again', n: 7, doc: '[1]', ...extras(2) });
    expect(rows).toEqual([{ id: 'again', n: 7, doc: [1], extra0: 0, extra1: 1 }]);
    expect(builds).toBe(7);
  });

  it('refuses a call missing one of its values, and stores nothing', async () => {
    await expect(shapes.rows(database.db, '0', { id: 'missing', n: 1 })).rejects.toThrow(/doc/);
    expect(await database.rows(sql`select id from shape_probe where id = 'missing'`)).toEqual([]);
  });
});

const extras = (width: number) => Object.fromEntries(Array.from({ length: width }, (_, i) => [`extra${i}`, i]));

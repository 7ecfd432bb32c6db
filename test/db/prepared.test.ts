import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUniqueViolation, prepared, queryRows } from '../../src/db/client.js';
import { createTestDatabase, engineName } from '../support/db.js';

// `prepared(query)` outside a transaction (src/db/prepared.ts on PGlite: named statements kept per
// session) answers what the plain statement answers, keeps its plan, survives its statements being
// dropped, reports errors as `rows` does and runs inside a transaction when given one.
let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
  await database.rows(sql`create table prepared_probe (id text primary key, n int not null, at timestamptz not null, doc jsonb)`);
});
afterAll(async () => database.drop());

const probe = (ids: string[], min: number) => sql`
  select id, n, at, doc, n::numeric / 3 as third, array[n, n + 1] as ns
  from prepared_probe where id = any(${sql.param(ids)}::text[]) and n >= ${min} order by id`;

describe(`prepared() outside a transaction (${engineName})`, () => {
  it('answers as rows does, call after call (past the plan cache switching to a generic plan)', async () => {
    for (let i = 0; i < 20; i++) {
      await database.rows(sql`insert into prepared_probe values (${`p${i}`}, ${i}, now() - ${`${i} minutes`}::interval, ${JSON.stringify({ i, tags: ['a', i] })}::jsonb)`);
    }
    for (let i = 0; i < 12; i++) {
      const ids = Array.from({ length: 1 + (i % 5) }, (_, k) => `p${i + k}`);
      const named = await database.rows(prepared(probe(ids, i % 3)));
      expect(named).toEqual(await database.rows(probe(ids, i % 3)));
      expect(named.length).toBeGreaterThan(0);
    }
  });

  it.runIf(engineName === 'pglite')('keeps one statement with a generic plan, so a bind no longer plans', async () => {
    for (let i = 0; i < 8; i++) await database.rows(prepared(probe(['p1', 'p2'], 0)));
    const [kept] = await database.rows<{ generic_plans: number | string; custom_plans: number | string }>(
      sql`select generic_plans, custom_plans from pg_prepared_statements where statement like '%from prepared_probe where id = any%'`,
    );
    expect(Number(kept!.generic_plans)).toBeGreaterThan(0);
  });

  it.runIf(engineName === 'pglite')('prepares again when its statements were dropped (DEALLOCATE ALL)', async () => {
    await database.rows(sql`deallocate all`);
    expect(await database.rows(prepared(probe(['p3'], 0)))).toEqual(await database.rows(probe(['p3'], 0)));
  });

  it('reports a failed statement with its code, and the next statement runs', async () => {
    const insert = (id: string) => sql`insert into prepared_probe (id, n, at) values (${id}, ${1}, now()) returning id`;
    await database.rows(prepared(insert('dup')));
    const failed = await database.rows(prepared(insert('dup'))).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isUniqueViolation(failed)).toBe(true);
    expect(await database.rows(prepared(insert('dup2')))).toEqual([{ id: 'dup2' }]);
  });

  // On PGlite Bind, Describe, Execute and Sync go in one exchange: an error in the first (a value
  // its parameter's type refuses) must still leave the session ready for the next statement.
  it('reports a value its parameter refuses (the bind fails), and the same statement runs next with a good one', async () => {
    const byN = (n: string) => prepared(sql`select id from prepared_probe where n = ${n}::int and id = 'p2'`);
    const failed = await database.rows(byN('not a number')).catch((err: unknown) => err);
    expect((failed as { cause?: { code?: string }; code?: string }).cause?.code ?? (failed as { code?: string }).code).toBe('22P02');
    expect(await database.rows(byN('2'))).toEqual([{ id: 'p2' }]);
  });

  it('runs inside the transaction it is given', async () => {
    const inTx = await database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into prepared_probe (id, n, at) values ('in-tx', 1, now())`);
      return database.rows<{ id: string }>(prepared(sql`select id from prepared_probe where id = ${'in-tx'}`), tx);
    });
    expect(inTx).toEqual([{ id: 'in-tx' }]);
  });

  it('stays correct past the number of statements it keeps (the oldest are closed)', async () => {
    for (let i = 0; i < 80; i++) {
      const query = sql`select id, ${sql.raw(String(i))} as k from prepared_probe where id = ${'p1'}`;
      expect(await database.rows(prepared(query))).toEqual([{ id: 'p1', k: i }]);
    }
    if (engineName === 'pglite') {
      const [count] = await database.rows<{ n: number }>(sql`select count(*)::int as n from pg_prepared_statements`);
      expect(count!.n).toBeLessThanOrEqual(64);
    }
  });
});

// `prepared(query)` in a transaction (the firing write's statements): a named statement on PGlite,
// the same rows and typed values as the plain statement, and a rollback neither loses nor breaks it.
describe(`prepared() in a transaction (${engineName})`, () => {
  const read = (ids: string[]) => sql`select id, n, at, doc, n::numeric / 3 as third from prepared_probe where id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)) order by id`;

  it('answers as the plain statement does, call after call, through execute and the select builder rows', async () => {
    for (let i = 0; i < 10; i++) {
      const ids = [`p${i}`, `p${i + 1}`];
      const [named, plain] = await database.db.transaction(async (tx) => [await queryRows(tx, prepared(read(ids))), await queryRows(tx, read(ids))]);
      expect(named).toEqual(plain);
      expect(named).toHaveLength(2);
    }
  });

  it.runIf(engineName === 'pglite')('keeps one named statement for the text, whatever the values', async () => {
    const before = await database.rows<{ n: number }>(sql`select count(*)::int as n from pg_prepared_statements where statement like '/* prepared */%'`);
    for (let i = 0; i < 6; i++) await database.db.transaction((tx) => queryRows(tx, prepared(read([`p${i}`]))));
    const after = await database.rows<{ n: number }>(sql`select count(*)::int as n from pg_prepared_statements where statement like '/* prepared */%'`);
    expect(after[0]!.n).toBe(before[0]!.n);
    expect(after[0]!.n).toBeGreaterThan(0);
  });

  it.runIf(engineName === 'postgres')('is a named statement of its connection, one for the text, in a transaction and a savepoint', async () => {
    // drizzle's postgres.js driver sends statements unnamed (parsed and planned on every call); a
    // marked one must not be.
    const named = (tx: Parameters<typeof queryRows>[0]) =>
      queryRows<{ n: number }>(tx, sql`select count(*)::int as n from pg_prepared_statements where statement like ${'/* prepared */ select id, n, at, doc, n::numeric / 3 as third from prepared_probe where id in (select jsonb_array_elements_text(%'}`);
    await database.db.transaction(async (tx) => {
      for (let i = 0; i < 6; i++) await queryRows(tx, prepared(read([`p${i}`])));
      expect((await named(tx))[0]!.n).toBe(1);
      await tx.transaction(async (savepoint) => {
        expect(await queryRows(savepoint, prepared(read(['p2'])))).toEqual(await queryRows(savepoint, read(['p2'])));
        expect((await named(savepoint))[0]!.n).toBe(1);
      });
    });
  });

  it('sees the transaction\'s own writes, and a rollback undoes them and leaves the statement usable', async () => {
    const insert = (id: string) => prepared(sql`insert into prepared_probe (id, n, at) values (${id}, ${7}, now()) returning id`);
    const failed = await database.db
      .transaction(async (tx) => {
        expect(await queryRows(tx, insert('rolled-back'))).toEqual([{ id: 'rolled-back' }]);
        expect(await queryRows(tx, prepared(read(['rolled-back'])))).toHaveLength(1);
        throw new Error('roll back');
      })
      .catch((err: unknown) => err);
    expect((failed as Error).message).toBe('roll back');
    expect(await database.rows(read(['rolled-back']))).toEqual([]);
    expect(await database.db.transaction((tx) => queryRows(tx, insert('kept')))).toEqual([{ id: 'kept' }]);
    expect(await database.rows<{ id: string }>(sql`select id from prepared_probe where id = 'kept'`)).toEqual([{ id: 'kept' }]);
  });

  it('fails the transaction with the statement\'s error (unique violation), and the next transaction runs', async () => {
    const insert = (id: string) => prepared(sql`insert into prepared_probe (id, n, at) values (${id}, ${1}, now()) returning id`);
    const failed = await database.db.transaction((tx) => queryRows(tx, insert('kept'))).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isUniqueViolation(failed)).toBe(true);
    expect(await database.db.transaction((tx) => queryRows(tx, insert('kept-2')))).toEqual([{ id: 'kept-2' }]);
  });

  it.runIf(engineName === 'pglite')('prepares again in a later transaction when its statements were dropped', async () => {
    await database.rows(sql`deallocate all`);
    const failed = await database.db.transaction((tx) => queryRows(tx, prepared(read(['p1'])))).catch((err: unknown) => err);
    // The first transaction after DEALLOCATE may fail (its bind finds no statement); the next prepares anew.
    // drizzle wraps the driver's error in its own, with the driver's as `cause`.
    if (failed instanceof Error) expect((failed as { cause?: { code?: string } }).cause?.code).toBe('26000');
    expect(await database.db.transaction((tx) => queryRows(tx, prepared(read(['p1']))))).toEqual(await database.rows(read(['p1'])));
  });
});

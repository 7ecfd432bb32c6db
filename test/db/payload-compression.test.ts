// drizzle/0025: a notification's payload is compressed with lz4 where the server has it (PostgreSQL
// packages), pglz elsewhere (PGlite); either way it reads back as written.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, engineName } from '../support/db.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

it(`a large payload is stored compressed with the fastest method the server has and reads back whole (${engineName})`, async () => {
  const [{ lz4 }] = (await database.rows<{ lz4: boolean }>(
    sql`select 'lz4' = any ((select enumvals from pg_settings where name = 'default_toast_compression')::text[]) as lz4`,
  )) as [{ lz4: boolean }];
  const payload = { type: 'price', polymarketSourceEvent: { price_changes: Array.from({ length: 60 }, (_, i) => ({ asset_id: `token-${i}`, price: '0.55', side: 'BUY', size: String(i * 10) })) } };
  await database.db.execute(sql`insert into accounts (id, webhook_secret) values ('pc', 's')`);
  await database.db.execute(sql`insert into notifications (id, account_id, type, payload, dedupe_key) values ('pc-n', 'pc', 'price', ${JSON.stringify(payload)}::jsonb, 'pc-k')`);
  const [row] = await database.rows<{ method: string; payload: unknown }>(sql`select pg_column_compression(payload) as method, payload from notifications where id = 'pc-n'`);
  expect(row!.method).toBe(lz4 ? 'lz4' : 'pglz');
  expect(typeof row!.payload === 'string' ? JSON.parse(row!.payload) : row!.payload).toEqual(payload);
  if (engineName === 'postgres') expect(lz4).toBe(true);
});

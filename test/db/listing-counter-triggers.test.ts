// The listing counter's triggers (drizzle/0018, 0022, 0023, 0024, 0026) on writes the API never makes but an
// operator's SQL or the delivery worker's batch writes can: cascades, savepoints, channels moved
// between accounts, channel health updated in bulk.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIPTION_LIST_CHANGED } from '../../src/db/coordination.js';
import { queryRows, type Queryable } from '../../src/db/index.js';
import { createTestDatabase, engineName } from '../support/db.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

const kept = async (account: string) =>
  (await database.rows<{ n: number | null }>(sql`select (select subscriptions from subscription_list_versions where account_id = ${account}) as n`))[0]!.n;
const version = async (key: string, on?: Queryable) =>
  BigInt((await database.rows<{ v: string }>(sql`select coalesce((select version from subscription_list_versions where account_id = ${key}), 0)::text as v`, on))[0]!.v);
/** The account's second counter row, raised by the deliveries' shown changes (drizzle/0026). */
const deliveriesRow = (account: string) => `${account} deliveries`;
const insertSubs = (account: string, watchlist: string, prefix: string, n: number) =>
  database.db.execute(sql`insert into subscriptions (id, account_id, watchlist_id, scope, type, trigger_type, status_reason)
    select ${prefix} || g, ${account}, ${watchlist}, 'Watchlist', 'Crossing', 'Recurring', 'x' from generate_series(1, ${n}::int) g`);
const account = async (id: string, ...watchlists: string[]) => {
  await database.db.execute(sql`insert into accounts (id, webhook_secret) values (${id}, 's')`);
  for (const w of watchlists) await database.db.execute(sql`insert into watchlists (id, account_id, name, query) values (${w}, ${id}, ${w}, '{}')`);
};

describe(`the kept subscription count through cascades and savepoints (${engineName})`, () => {
  it('an account deleted with watchlists and subscriptions (two cascade paths) leaves its count at 0, not below', async () => {
    await account('del', 'del-w1', 'del-w2');
    await insertSubs('del', 'del-w1', 'del-d1-', 3);
    await insertSubs('del', 'del-w2', 'del-d2-', 2);
    expect(await kept('del')).toBe(5);
    await database.db.execute(sql`delete from accounts where id = 'del'`);
    expect(await kept('del')).toBe(0);
  });

  it('a savepoint rolled back takes its count change with it', async () => {
    await account('sp', 'sp-w');
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into subscriptions (id, account_id, watchlist_id, scope, type, trigger_type, status_reason)
        values ('sp-1', 'sp', 'sp-w', 'Watchlist', 'Crossing', 'Recurring', 'x')`);
      await tx
        .transaction(async (savepoint) => {
          await savepoint.execute(sql`insert into subscriptions (id, account_id, watchlist_id, scope, type, trigger_type, status_reason)
            values ('sp-2', 'sp', 'sp-w', 'Watchlist', 'Crossing', 'Recurring', 'x')`);
          savepoint.rollback();
        })
        .catch(() => {});
    });
    expect(await kept('sp')).toBe(1);
  });
});

describe(`channels changed by hand or in bulk (${engineName})`, () => {
  it('a channel moved to another account\'s subscription raises both accounts\' listings', async () => {
    await account('ma', 'ma-w');
    await account('mb', 'mb-w');
    await insertSubs('ma', 'ma-w', 'ma-', 1);
    await insertSubs('mb', 'mb-w', 'mb-', 1);
    await database.db.execute(sql`insert into subscription_channels (subscription_id, position, type) values ('ma-1', 0, 'In App')`);
    const [a, b] = [await version('ma'), await version('mb')];
    await database.db.execute(sql`update subscription_channels set subscription_id = 'mb-1' where subscription_id = 'ma-1'`);
    expect(await version('ma')).toBeGreaterThan(a);
    expect(await version('mb')).toBeGreaterThan(b);
  });

  it('a bulk health write leaves the listing alone; a settings change raises it once', async () => {
    await account('h', 'h-w');
    await insertSubs('h', 'h-w', 'h-', 500);
    await database.db.execute(sql`insert into subscription_channels (subscription_id, position, type) select 'h-' || g, 0, 'In App' from generate_series(1, 500) g`);
    const before = await version('h');
    await database.db.execute(sql`update subscription_channels set failed_notifications = failed_notifications + 1 where subscription_id like 'h-%'`);
    expect(await version('h')).toBe(before);
    await database.db.execute(sql`update subscription_channels set settings = '{"muted": true}' where subscription_id in ('h-1', 'h-2')`);
    expect(await version('h')).toBe(before + 1n);
  });
});

describe(`a firing's writes and the delivery outcomes (${engineName})`, () => {
  const notify = (tx: Queryable, account: string, sub: string, from: number, to: number) =>
    tx.execute(sql`insert into notifications (id, account_id, subscription_id, type, payload, dedupe_key)
      select ${account} || '-n' || g, ${account}, ${sub}, 'price', '{}', ${account} || '-k' || g from generate_series(${from}::int, ${to}::int) g`);
  const deliver = (tx: Queryable, account: string, from: number, to: number) =>
    tx.execute(sql`insert into deliveries (id, notification_id, position, channel_type, status)
      select ${account} || '-d' || g, ${account} || '-n' || g, 0, 'Webhook', 'PENDING' from generate_series(${from}::int, ${to}::int) g`);

  it('a firing (its subscription, notification and deliveries written in one transaction) raises the listing once', async () => {
    await account('f', 'f-w');
    await insertSubs('f', 'f-w', 'f-', 1);
    const before = await version('f');
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`update subscriptions set trigger_count = trigger_count + 1 where id = 'f-1'`);
      await notify(tx, 'f', 'f-1', 1, 1);
      await deliver(tx, 'f', 1, 1);
    });
    expect(await version('f')).toBe(before + 1n);
    // The worker's outcome: the channel's status changes, so the listing does, through the account's
    // deliveries row (0026): the row a firing write raises is left to the engine.
    expect(await version(deliveriesRow('f'))).toBe(0n);
    await database.db.execute(sql`update deliveries set status = 'SENT' where id = 'f-d1'`);
    expect(await version(deliveriesRow('f'))).toBe(1n);
    expect(await version('f')).toBe(before + 1n);
    // A lease or a due time alone changes nothing shown.
    await database.db.execute(sql`update deliveries set lease_until = now(), due_at = now() where id = 'f-d1'`);
    expect(await version(deliveriesRow('f'))).toBe(1n);
    expect(await version('f')).toBe(before + 1n);
  });

  it('an outcome batch raises the deliveries row once a transaction, not stood in for by a savepoint rolled back, and notifies the account', async () => {
    await account('o', 'o-w');
    await insertSubs('o', 'o-w', 'o-', 1);
    await notify(database.db, 'o', 'o-1', 1, 3);
    await deliver(database.db, 'o', 1, 3);
    const before = await version('o');
    const count = await kept('o');
    // On PGlite the writing session is the listening one, and its notices arrive before the commit
    // returns; on PostgreSQL the writing session does not listen and sends none (0019).
    const payloads: string[] = [];
    const stop = database.kind === 'pglite' ? await database.listen(SUBSCRIPTION_LIST_CHANGED, (p) => payloads.push(p)) : async () => {};
    try {
      await database.db.transaction(async (tx) => {
        await tx
          .transaction(async (savepoint) => {
            await savepoint.execute(sql`update deliveries set status = 'SENT' where id = 'o-d1'`);
            expect(await version(deliveriesRow('o'), savepoint)).toBe(1n);
            savepoint.rollback();
          })
          .catch(() => {});
        expect(await version(deliveriesRow('o'), tx)).toBe(0n);
        await tx.execute(sql`update deliveries set status = 'FAILED' where id = 'o-d1'`);
      });
      const afterSavepoint = await version(deliveriesRow('o'));
      expect(afterSavepoint).toBeGreaterThan(0n);
      // Two outcome statements in one transaction raise it once.
      await database.db.transaction(async (tx) => {
        await tx.execute(sql`update deliveries set status = 'SENT' where id = 'o-d2'`);
        await tx.execute(sql`update deliveries set status = 'SENT' where id = 'o-d3'`);
      });
      expect(await version(deliveriesRow('o'))).toBe(afterSavepoint + 1n);
      expect(await version('o')).toBe(before);
      expect(await kept('o')).toBe(count);
      // The notices name the account, never its deliveries row (PGlite's generations are per account).
      if (database.kind === 'pglite') expect(new Set(payloads)).toEqual(new Set(['o']));
    } finally {
      await stop();
    }
  });

  it('a raise in a savepoint rolled back does not stand in for a later one', async () => {
    await account('r', 'r-w');
    await insertSubs('r', 'r-w', 'r-', 1);
    const before = await version('r');
    await database.db.transaction(async (tx) => {
      await tx
        .transaction(async (savepoint) => {
          await notify(savepoint, 'r', 'r-1', 1, 1);
          savepoint.rollback();
        })
        .catch(() => {});
      await notify(tx, 'r', 'r-1', 2, 2);
    });
    expect(await version('r')).toBe(before + 1n);
  });

  it('a small delivery batch after a large one reads only the notifications it names', async () => {
    await account('big', 'big-w');
    await insertSubs('big', 'big-w', 'big-', 1);
    // One transaction: one connection, so the trigger's plan made for the 300-row batch is the one
    // the 5-row batch runs (plpgsql keeps a session's plan). With statistics that know the 3,000
    // notifications, a join planned for 300 rows read all of them on every later call.
    const readBySmallBatch = await database.db.transaction(async (tx) => {
      await notify(tx, 'big', 'big-1', 1, 3000);
      await tx.execute(sql`analyze notifications`);
      await deliver(tx, 'big', 1, 300);
      const seqRead = async () =>
        (await queryRows<{ n: number }>(tx, sql`select seq_tup_read::int as n from pg_stat_xact_user_tables where relname = 'notifications'`))[0]!.n;
      const before = await seqRead();
      await deliver(tx, 'big', 301, 305);
      return (await seqRead()) - before;
    });
    expect(readBySmallBatch).toBe(0);
    expect(await version('big')).toBeGreaterThan(0n);
  });
});

import { types, type PGlite, type QueryOptions, type Transaction } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import postgres, { type Sql, type TransactionSql } from 'postgres';
import { openPgliteFolder } from './pglite-folder.js';
import { preparedInTransaction, preparedQuery } from './prepared.js';
import { makeTreePrivate } from './private-files.js';
import * as schema from './schema/index.js';

export { PGLITE_EXTENSIONS, PGLITE_INITDB_ARGS, PGLITE_SETTINGS } from './pglite-folder.js';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything that runs queries: the database itself or an open transaction. */
export type Queryable = Db | Tx;

export type Unlisten = () => Promise<void>;

/**
 * One handle over PGlite or PostgreSQL. The drizzle query builder is the same on both; the raw
 * layer (row shape of `execute`, LISTEN) differs, so it is wrapped here and nowhere else.
 */
export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  rows<T extends Record<string, unknown>>(query: SQL, on?: Queryable): Promise<T[]>;
  listen(channel: string, onPayload: (payload: string) => void): Promise<Unlisten>;
  /** Runs `fn` while holding a session-level advisory lock; other holders wait. */
  withAdvisoryLock<T>(key: number, fn: () => Promise<T>): Promise<T>;
  /**
   * Takes a session-level advisory lock if it is free; it is held until `release` or close. The lock lives on a reserved pool connection, so it suits short work
   * (a catalog sync pass); a lock held for the process's life belongs on a `lockSession`.
   */
  tryAdvisoryLock(key: number): Promise<{ release(): Promise<void> } | undefined>;
  /**
   * A database session of its own for locks held for a long time (a bot's single connection, an
   * engine's shard slot): unlike `tryAdvisoryLock`, its locks can tell when their session has died,
   * and a session the server ended does not take the process down.
   */
  lockSession(): LockSession;
  close(): Promise<void>;
}

export interface LockSession {
  /**
   * Takes the session lock if it is free: one key, or with `key2` the two-key form
   * `pg_try_advisory_lock(key, key2)` (in `pg_locks`: classid = key, objid = key2, objsubid = 2).
   * Do not ask again for a key this session holds.
   */
  tryLock(key: number, key2?: number): Promise<AdvisoryLock | undefined>;
  /** Ends the session, and with it any lock still held. */
  close(): Promise<void>;
}

export interface AdvisoryLock {
  /**
   * Whether the lock is still ours: false once its session ended (a broken connection; the server
   * freed the lock and another process may hold it now). Errors count as false.
   */
  held(): Promise<boolean>;
  release(): Promise<void>;
}

export interface OpenDatabaseOptions {
  databaseUrl?: string;
  dataDir?: string;
  /**
   * An already open PGlite instance (tests load a migrated template into memory; main.ts opens the
   * folder early). With `dataDir`, the folder it runs on, made private again once closed.
   */
  pglite?: PGlite;
  maxConnections?: number;
  /** False: a new PGlite folder runs initdb instead of starting from the build's image (making the image). */
  fromImage?: boolean;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.maxConnections ?? 10);
  if (options.pglite) return wrapPglite(options.pglite, options.dataDir);
  const dataDir = options.dataDir ?? './data';
  return wrapPglite(await openPgliteFolder(dataDir, options.fromImage !== false), dataDir);
}

/** The rows of a raw query on either engine: PGlite answers `{ rows }`, postgres.js an array. */
export async function queryRows<T extends Record<string, unknown>>(on: Queryable, query: SQL): Promise<T[]> {
  return rowsOf<T>(await on.execute(query));
}

/** The rows of what a raw statement answered, on either engine. */
export const rowsOf = <T extends Record<string, unknown>>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];

/**
 * The parsers drizzle hands PGlite with every query (drizzle-orm/pglite/session.js): dates, times
 * and intervals, and arrays of them, as PostgreSQL's text, which drizzle maps itself.
 */
const asText = (value: string) => value;
const DRIZZLE_PARSERS = {
  [types.TIMESTAMP]: asText,
  [types.TIMESTAMPTZ]: asText,
  [types.INTERVAL]: asText,
  [types.DATE]: asText,
  1231: asText, // numeric[]
  1115: asText, // timestamp[]
  1185: asText, // timestamptz[]
  1187: asText, // interval[]
  1182: asText, // date[]
};

/**
 * The PGlite client drizzle is given: drizzle's parsers set once on the instance, and queries sent
 * without them. PGlite merges a query's parsers into its own ~320 on every result (an object
 * spread per query): 0.25 ms of CPU a query, more than half of a `select 1`. The parsing is the
 * same. drizzle calls `query` and `transaction` only.
 */
export function drizzleClientOf(pg: PGlite): Pick<PGlite, 'query' | 'transaction'> {
  // Once PGlite is ready: its start builds the array types' parsers, which would replace these.
  let tuned: Promise<void> | undefined;
  const ready = () => (tuned ??= pg.waitReady.then(() => void Object.assign(pg.parsers, DRIZZLE_PARSERS)));
  const bare = (options: QueryOptions | undefined) => (options?.parsers ? { ...options, parsers: undefined } : options);
  return {
    query: async (query, params, options) => {
      await ready();
      return query.startsWith(PREPARED_MARK) ? preparedQuery(pg, query, params ?? [], options) : pg.query(query, params, bare(options));
    },
    transaction: async (fn) => {
      await ready();
      return pg.transaction((tx) =>
        fn(
          Object.create(tx, {
            query: {
              value: ((query, params, options) =>
                query.startsWith(PREPARED_MARK) ? preparedInTransaction(pg, query, params ?? [], options) : tx.query(query, params, bare(options))) satisfies Transaction['query'],
            },
          }) as Transaction,
        ),
      );
    },
  };
}

const PREPARED_MARK = '/* prepared */ ';

/**
 * A hot statement whose text does not change with its values (a create, the engine's reload, the
 * firing write's statements): run through a named statement, parsed once per session (PGlite) or
 * connection (PostgreSQL) and planned generically once PostgreSQL finds that no dearer, in a
 * transaction or not. Unmarked, PGlite's `query` and drizzle's postgres.js driver (`unsafe` without
 * `prepare`) send every statement unnamed: parsed, analysed and planned on every call.
 */
export const prepared = (query: SQL): SQL => sql`${sql.raw(PREPARED_MARK)}${query}`;

type UnsafeOptions = Parameters<Sql['unsafe']>[2];

/**
 * The postgres.js client drizzle is given: a statement marked `prepared` runs as a named statement
 * of its connection (postgres.js keeps one per text and connection), in transactions and savepoints
 * too. drizzle's driver sends everything else unnamed, and a marked statement was too: at 1,000
 * firings/s a seventh of PostgreSQL's CPU went to parsing and planning the firing write's and the
 * worker's statements again on every call (docs/PERFORMANCE.md "Delivery"). drizzle uses `unsafe`,
 * `begin`, `savepoint` and `options` only.
 */
function preparingClientOf<T extends Sql | TransactionSql>(client: T): T {
  type Body = (inner: TransactionSql) => unknown;
  const wrapBody = (args: unknown[]) => args.map((a) => (typeof a === 'function' ? (inner: TransactionSql) => (a as Body)(preparingClientOf(inner)) : a));
  return Object.create(client, {
    unsafe: {
      value: (query: string, params?: unknown[], options?: UnsafeOptions) =>
        client.unsafe(query, params as never, query.startsWith(PREPARED_MARK) ? { ...options, prepare: true } : options),
    },
    begin: { value: (...args: unknown[]) => (client as Sql).begin(...(wrapBody(args) as [Body])) },
    savepoint: { value: (...args: unknown[]) => (client as TransactionSql).savepoint(...(wrapBody(args) as [Body])) },
  }) as T;
}

/** `dataDir`: the folder PGlite keeps its files in, made private again once closed. */
function wrapPglite(pg: PGlite, dataDir?: string): Database {
  const db = drizzlePglite(drizzleClientOf(pg) as PGlite, { schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    rows: (query, on = db) => queryRows(on, query),
    async listen(channel, onPayload) {
      const unlisten = await pg.listen(channel, onPayload);
      return async () => {
        if (!pg.closed) await unlisten();
      };
    },
    // One PGlite connection per process: there is no one else to wait for.
    withAdvisoryLock: (_key, fn) => fn(),
    async tryAdvisoryLock() {
      return { release: async () => {} };
    },
    lockSession: () => ({
      tryLock: async () => ({ held: async () => !pg.closed, release: async () => {} }),
      close: async () => {},
    }),
    async close() {
      if (pg.closed) return;
      await pg.close();
      if (dataDir) await makeTreePrivate(dataDir);
    },
  };
}

function openPostgres(url: string, max: number): Database {
  // Advisory locks reserve a connection of their own while the work runs on another: at least two.
  const client = postgres(url, { max: Math.max(2, max), onnotice: () => {}, connection: { application_name: 'oddswatch' } });
  const db = drizzlePostgres(preparingClientOf(client), { schema }) as unknown as Db;
  return {
    kind: 'postgres',
    db,
    rows: (query, on = db) => queryRows(on, query),
    async listen(channel, onPayload) {
      const { unlisten } = await client.listen(channel, (payload) => onPayload(payload));
      return unlisten;
    },
    async withAdvisoryLock(key, fn) {
      const reserved = await client.reserve();
      try {
        await reserved`select pg_advisory_lock(${key})`;
        return await fn();
      } finally {
        await reserved`select pg_advisory_unlock(${key})`.catch(() => {});
        reserved.release();
      }
    },
    async tryAdvisoryLock(key) {
      const reserved = await client.reserve();
      const [row] = await reserved`select pg_try_advisory_lock(${key}) as locked`;
      if (!row?.locked) {
        reserved.release();
        return undefined;
      }
      return {
        async release() {
          await reserved`select pg_advisory_unlock(${key})`.catch(() => {});
          reserved.release();
        },
      };
    },
    lockSession: () => postgresLockSession(url),
    async close() {
      await client.end({ timeout: 5 });
    },
  };
}

/**
 * One connection of its own. Not a reserved pool connection: postgres.js must not be given
 * queries on a reserved connection the server has closed, and a lost lock is only seen by asking.
 * When this connection breaks, the next query opens a new session, which holds no lock.
 */
function postgresLockSession(url: string): LockSession {
  let session: postgres.Sql | undefined;
  const open = () => (session ??= postgres(url, { max: 1, onnotice: () => {}, connection: { application_name: 'oddswatch-locks' } }));
  return {
    async tryLock(key, key2) {
      const sql = open();
      const [row] =
        key2 === undefined
          ? await sql`select pg_try_advisory_lock(${key}) as locked`
          : await sql`select pg_try_advisory_lock(${key}::int, ${key2}::int) as locked`;
      if (!row?.locked) return undefined;
      // How pg_locks shows the lock (see `tryLock`).
      const [classid, objid, objsubid] = key2 === undefined ? [Math.floor(key / 2 ** 32), key % 2 ** 32, 1] : [key, key2, 2];
      return {
        async held() {
          const rows = await sql`
            select count(*)::int as n from pg_locks
            where locktype = 'advisory' and granted and pid = pg_backend_pid()
              and objsubid = ${objsubid} and classid = ${classid} and objid = ${objid}`.catch(() => [{ n: 0 }]);
          return Number(rows[0]?.n ?? 0) > 0;
        },
        async release() {
          // On a session that is not the one that took it, this only warns (ignored): nothing to free.
          const unlock = key2 === undefined ? sql`select pg_advisory_unlock(${key})` : sql`select pg_advisory_unlock(${key}::int, ${key2}::int)`;
          await unlock.catch(() => {});
        },
      };
    },
    async close() {
      await session?.end({ timeout: 2 });
      session = undefined;
    },
  };
}

/** Runs `fn` in a transaction, or inside the caller's when one is passed. */
export async function inTransaction<T>(on: Queryable, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (isTransaction(on)) return fn(on);
  return (on as Db).transaction(fn);
}

function isTransaction(on: Queryable): on is Tx {
  return 'rollback' in on && typeof (on as Tx).rollback === 'function';
}

/** Queues a change-feed notice; delivered on commit, ids only. */
export function notifyChange(on: Queryable, channel: string, payload: string) {
  return notifyChanges(on, channel, [payload]);
}

/** One notice per payload, in one round trip. */
export function notifyChanges(on: Queryable, channel: string, payloads: readonly string[]) {
  const values = sql.join(
    payloads.map((p) => sql`(${p})`),
    sql`, `,
  );
  return on.execute(sql`select pg_notify(${channel}, v.payload) from (values ${values}) as v(payload)`);
}

/** PostgreSQL's unique_violation (23505), which drizzle may wrap in `cause`; nothing else matches. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e === 'object' && (e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}

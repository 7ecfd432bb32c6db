import { sql } from 'drizzle-orm';
import { queryRows, type Db, type Queryable, type Tx } from './client.js';
import { DAY_PARTITIONS_LOCK } from './coordination.js';

/**
 * The sample tables, kept as one partition per UTC day (drizzle/0030): history past retention goes
 * a whole day at a time, by DROP TABLE. Deleted rows would leave their space for a vacuum to
 * reclaim, and PGlite never vacuums (docs/decisions.md "Samples in day partitions").
 */
export type DayPartitionedTable = 'market_samples' | 'price_samples';

export const DAY_MS = 86_400_000;

/** A partition's range, `[fromMs, toMs)`; the one 0030 made of the rows stored before it starts at -Infinity. */
interface Partition {
  name: string;
  fromMs: number;
  toMs: number;
}

export interface KeptDays {
  /** Instants whose UTC days must have their partition. */
  days: readonly number[];
  /** Partitions whose whole range is before this instant are dropped. */
  dropBeforeMs: number;
}

const startOfDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
const iso = (ms: number) => new Date(ms).toISOString();

/** `<table>_dYYYYMMDD` holds that day; `<table>_before_YYYYMMDD` (0030's) everything before it. */
function partitionOf(table: DayPartitionedTable, name: string): Partition | undefined {
  const match = /^(.*)_(d|before_)(\d{4})(\d{2})(\d{2})$/.exec(name);
  if (!match || match[1] !== table) return undefined;
  const dayMs = Date.UTC(Number(match[3]), Number(match[4]) - 1, Number(match[5]));
  return match[2] === 'd' ? { name, fromMs: dayMs, toMs: dayMs + DAY_MS } : { name, fromMs: -Infinity, toMs: dayMs };
}

async function partitionsOf(on: Queryable, table: DayPartitionedTable): Promise<Partition[]> {
  const rows = await queryRows<{ name: string }>(
    on,
    sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = ${table}::regclass`,
  );
  return rows.flatMap((r) => partitionOf(table, r.name) ?? []);
}

/** The days `kept` asks for that no partition holds. */
const missingDays = (partitions: Partition[], kept: KeptDays) =>
  [...new Set(kept.days.map(startOfDay))].filter((day) => !partitions.some((p) => p.fromMs <= day && day < p.toMs));
/** The partitions wholly before the cutoff. */
const expired = (partitions: Partition[], kept: KeptDays) => partitions.filter((p) => p.toMs <= kept.dropBeforeMs);

/**
 * Creates the partitions of the days `kept` asks for and drops those wholly before its cutoff
 * (callers ask for no day before it). The catalog read alone when there is nothing to do (every
 * call but about one a day); otherwise short transactions under an advisory lock, so processes
 * sharing a PostgreSQL database do not race.
 *
 * Locks, on PostgreSQL: a day is made as a table of its own, then attached, which takes only a
 * SHARE UPDATE EXCLUSIVE lock on the parent (readers and writers go on; `CREATE TABLE ... PARTITION
 * OF` would take an exclusive one). A drop does take an exclusive lock, so it gives up after a 1 s
 * wait (`lock_timeout`, set before the advisory lock so that wait is bounded too): waiting behind a
 * long reader would queue every other query of the table behind it. The days are made first, in a
 * transaction of their own, so a drop that gives up does not take them back: tomorrow's partition,
 * made a day ahead, keeps writes going until a later call drops what is due.
 *
 * `on` is never a transaction: the DDL's locks would last until the caller's commit.
 */
export async function keepDays(on: Db, table: DayPartitionedTable, kept: KeptDays): Promise<void> {
  const partitions = await partitionsOf(on, table);
  if (missingDays(partitions, kept).length > 0) {
    await underLock(on, async (tx) => {
      for (const day of missingDays(await partitionsOf(tx, table), kept)) {
        const name = `${table}_d${ymd(day)}`;
        await tx.execute(sql.raw(`create table "${name}" (like "${table}" including defaults)`));
        await tx.execute(sql.raw(`alter table "${table}" attach partition "${name}" for values from ('${iso(day)}') to ('${iso(day + DAY_MS)}')`));
      }
    });
  }
  if (expired(partitions, kept).length > 0) {
    await underLock(on, async (tx) => {
      for (const p of expired(await partitionsOf(tx, table), kept)) await tx.execute(sql.raw(`drop table if exists "${p.name}"`));
    });
  }
}

function underLock(on: Db, fn: (tx: Tx) => Promise<void>): Promise<void> {
  return on.transaction(async (tx) => {
    await tx.execute(sql`select set_config('lock_timeout', '1s', true)`);
    await tx.execute(sql`select pg_advisory_xact_lock(${DAY_PARTITIONS_LOCK})`);
    await fn(tx);
  });
}

import { EventEmitter } from 'node:events';
import { sql } from 'drizzle-orm';
import { notifyChange, type AdvisoryLock, type Database, type LockSession, type Unlisten } from '../db/client.js';
import { MAX_SHARDS, SHARD_LOCK_CLASS, SHARDS_CHANGED, SHARDS_READY } from '../db/coordination.js';
import type { Logger } from '../logger.js';

/**
 * Splitting tokens between engine processes on one PostgreSQL.
 *
 * Each process holds a membership slot: the two-key advisory lock (SHARD_LOCK_CLASS, k) for the
 * lowest free k in 0..MAX_SHARDS-1, on a lock session of its own (Database.lockSession) kept for the
 * process's life: a session the server ends (a restart, `pg_terminate_backend`) loses the slot, and
 * the next refresh claims one again on a new session, without taking the process down. The live
 * members are the granted locks of that class in `pg_locks`; sorted, they give the member count n
 * and the process's own rank r. A token belongs to the process whose rank is `tokenHash(token) % n`.
 * A crashed process's session ends, its lock goes, and the others take its tokens on their next
 * refresh. PGlite is one process: one member, owns everything.
 */

/** FNV-1a, 32 bits, over the token's UTF-8 bytes: the same in every process and release. */
export function tokenHash(token: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(token, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The rank (0..n-1) of the member that owns the token among n members. */
export function ownerRank(token: string, count: number): number {
  return count <= 1 ? 0 : tokenHash(token) % count;
}

export interface ShardView {
  /** Live members (at least 1: this process). */
  count: number;
  /** This process's position among them, 0..count-1. */
  rank: number;
}

export interface ShardMembershipEvents {
  /**
   * The member count or this process's rank changed: token ownership moved. `previousMembers` are
   * the slots before the change, so a token's previous owner is known.
   */
  changed: [view: ShardView, previousMembers: readonly number[]];
  /** A member follows every token it owns among `members` (see `announceReady`). */
  ready: [slot: number, members: string];
}

export interface ShardMembership {
  /** This process's slot (the second lock key); 0 on PGlite. */
  readonly slot: number;
  readonly view: ShardView;
  /** The live members' slots, sorted (rank order); [slot] on PGlite. */
  readonly members: readonly number[];
  /**
   * The live members as one string, different for every run of a member (slot and lock holder),
   * so a `ready` of a member's earlier run never counts for its new one.
   */
  readonly membersKey: string;
  owns(token: string): boolean;
  /** The slot owning the token among these members. */
  ownerOf(token: string, members: readonly number[]): number | undefined;
  /**
   * Tells the others this process follows (subscribed, fresh book) every token it owns among
   * `members` (a `membersKey`), so their previous owners may stop evaluating them.
   */
  announceReady(members: string): Promise<void>;
  /** Reads the live members now; true when the view changed (and `changed` was emitted). */
  refresh(): Promise<boolean>;
  /** Stops refreshing and gives the slot up. */
  close(): Promise<void>;
  on<K extends keyof ShardMembershipEvents>(event: K, listener: (...args: ShardMembershipEvents[K]) => void): ShardMembership;
  off<K extends keyof ShardMembershipEvents>(event: K, listener: (...args: ShardMembershipEvents[K]) => void): ShardMembership;
}

export interface ShardMembershipOptions {
  database: Database;
  logger: Logger;
  /**
   * How often the live members are read (ms). Default 250: a process killed without notice is
   * found within this long (its session, and lock, end as soon as its sockets close).
   */
  refreshIntervalMs?: number;
}

// SHARDS_CHANGED is announced when a process joins or leaves gracefully, so the others re-read the
// members at once instead of at their next refresh: tokens of a process that stops have no owner
// until then. A crashed process announces nothing; the periodic refresh finds it.

interface Member {
  slot: number;
  /** The backend holding the slot's lock: tells a restarted member from its previous run. */
  pid: number;
}

async function claimSlot(locks: LockSession): Promise<{ slot: number; lock: AdvisoryLock }> {
  for (let k = 0; k < MAX_SHARDS; k++) {
    const lock = await locks.tryLock(SHARD_LOCK_CLASS, k);
    if (lock) return { slot: k, lock };
  }
  throw new Error(`no free engine shard slot: ${MAX_SHARDS} engine processes already run on this database`);
}

async function liveMembers(database: Database): Promise<Member[]> {
  const rows = await database.rows<{ slot: number; pid: number }>(sql`
    select objid::int as slot, pid from pg_locks
    where locktype = 'advisory' and classid = ${SHARD_LOCK_CLASS} and objsubid = 2 and granted
      and database = (select oid from pg_database where datname = current_database())`);
  const bySlot = new Map(rows.map((r) => [Number(r.slot), Number(r.pid)]));
  return [...bySlot].map(([slot, pid]) => ({ slot, pid })).sort((a, b) => a.slot - b.slot);
}

/** Joins the engine processes of this database; on PGlite the only member. */
export async function joinShards(options: ShardMembershipOptions): Promise<ShardMembership> {
  const { database } = options;
  const logger = options.logger.child({ component: 'shards' });
  const emitter = new EventEmitter();
  let view: ShardView = { count: 1, rank: 0 };
  let members: readonly number[] = [0];
  let key = '0';
  let slot = 0;
  // PGlite is one process: no slot to claim, no session to keep.
  const locks = database.kind === 'postgres' ? database.lockSession() : undefined;
  let lock: AdvisoryLock | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let refreshing: Promise<boolean> | undefined;
  let unlisten: Unlisten | undefined;
  let unlistenReady: Unlisten | undefined;

  if (locks) ({ slot, lock } = await claimSlot(locks));
  const announce = () =>
    notifyChange(database.db, SHARDS_CHANGED, String(slot)).catch((error: unknown) =>
      logger.warn({ err: error }, 'announcing an engine shard change failed'),
    );

  async function readView(): Promise<boolean> {
    if (!locks || closed) return false;
    let live = await liveMembers(database);
    if (!live.some((m) => m.slot === slot)) {
      // Our lock session is gone (the server ended it, the connection broke): the lock session
      // opens a new one on its next query, where we claim a slot again.
      logger.warn({ slot }, 'engine shard slot lost; claiming again');
      await lock?.release().catch(() => {});
      ({ slot, lock } = await claimSlot(locks));
      live = await liveMembers(database);
    }
    const slots = live.map((m) => m.slot);
    const nextKey = live.map((m) => `${m.slot}@${m.pid}`).join(',');
    const next: ShardView = { count: Math.max(1, slots.length), rank: Math.max(0, slots.indexOf(slot)) };
    const previousMembers = members;
    members = slots.length > 0 ? slots : [slot];
    const previousKey = key;
    key = nextKey;
    if (next.count === view.count && next.rank === view.rank && key === previousKey) return false;
    const previous = view;
    view = next;
    logger.info({ slot, previous, view, members }, 'engine shard membership changed');
    emitter.emit('changed', view, previousMembers);
    return true;
  }

  const membership: ShardMembership = {
    get slot() {
      return slot;
    },
    get view() {
      return view;
    },
    get members() {
      return members;
    },
    get membersKey() {
      return key;
    },
    owns: (token) => view.count <= 1 || ownerRank(token, view.count) === view.rank,
    ownerOf: (token, among) => among[ownerRank(token, among.length)],
    async announceReady(members) {
      if (database.kind !== 'postgres' || closed) return;
      await notifyChange(database.db, SHARDS_READY, `${slot}:${members}`);
    },
    refresh() {
      // One read at a time; a caller arriving meanwhile shares it.
      refreshing ??= readView().finally(() => (refreshing = undefined));
      return refreshing;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      await unlisten?.().catch(() => {});
      await unlistenReady?.().catch(() => {});
      await refreshing?.catch(() => {});
      await lock?.release();
      lock = undefined;
      await locks?.close();
      if (database.kind === 'postgres') await announce();
    },
    on(event, listener) {
      emitter.on(event, listener as (...args: unknown[]) => void);
      return membership;
    },
    off(event, listener) {
      emitter.off(event, listener as (...args: unknown[]) => void);
      return membership;
    },
  };

  if (database.kind === 'postgres') {
    unlisten = await database.listen(SHARDS_CHANGED, () => {
      membership.refresh().catch((error: unknown) => logger.warn({ err: error }, 'reading engine shard members failed'));
    });
    unlistenReady = await database.listen(SHARDS_READY, (payload) => {
      const at = payload.indexOf(':');
      const from = Number(payload.slice(0, at));
      if (at > 0 && Number.isInteger(from) && from !== slot) emitter.emit('ready', from, payload.slice(at + 1));
    });
    members = [slot];
    await membership.refresh();
    await announce();
    timer = setInterval(() => {
      membership.refresh().catch((error: unknown) => logger.warn({ err: error }, 'reading engine shard members failed'));
    }, options.refreshIntervalMs ?? 250);
    timer.unref();
  }
  return membership;
}

/**
 * Every name processes on one database coordinate through: advisory lock keys and LISTEN/NOTIFY
 * channels. They live here, side by side, so two features cannot pick the same key (a migration
 * once waited on catalog sync passes because both used 0x0dd5_0001) or the same channel.
 * test/db/coordination.test.ts checks that they stay distinct.
 */

// One-key locks, `pg_advisory_lock(bigint)`: in pg_locks classid = high 32 bits, objid = low 32
// bits, objsubid = 1. The 0x0dd5 prefix keeps ours apart from other applications' on a shared server.

/** Migrations at start: concurrent starts take turns. Never change it: old and new versions must agree. */
export const MIGRATION_LOCK = 0x0dd5_0001;
/** The operator's account creation (`accounts create`): the first account is the admin. */
export const OPERATOR_LOCK = 0x0dd5_0002;
/** One catalog sync pass at a time in a whole deployment. */
export const SYNC_LOCK = 0x0dd5_0003;
/** The holder of each chat platform's single connection (Telegram polling, Discord gateway). */
export const BOT_LOCKS = { telegram: 0x0dd5_0004, discord: 0x0dd5_0005 } as const;
/** Creating and dropping the day partitions of the sample tables (transaction-scoped). */
export const DAY_PARTITIONS_LOCK = 0x0dd5_0006;

// Two-key locks, `pg_advisory_lock(int, int)`: in pg_locks classid = key, objid = key2, objsubid = 2.

/** First key of the engine membership slots ("OW"); the second key is the slot, 0..MAX_SHARDS-1. */
export const SHARD_LOCK_CLASS = 0x4f57;
export const MAX_SHARDS = 64;
/**
 * First key of a batched send's claim lock ("OX"); the second key is `hashtext(batch_key)`, held for
 * the claim statement only (src/delivery/outbox-store.ts). A class of its own, so a key's hash can
 * never meet one of the one-key locks above.
 */
export const BATCH_LOCK_CLASS = 0x4f58;

/** A lock as pg_locks shows it, so keys of both forms can be compared. */
export interface LockIdentity {
  name: string;
  classid: number;
  objid: number;
  objsubid: 1 | 2;
}

const oneKey = (name: string, key: number): LockIdentity => ({ name, classid: Math.floor(key / 2 ** 32), objid: key % 2 ** 32, objsubid: 1 });

/** Every advisory lock any process may take, engine slots included. */
export function allAdvisoryLocks(): LockIdentity[] {
  return [
    oneKey('migration', MIGRATION_LOCK),
    oneKey('operator', OPERATOR_LOCK),
    oneKey('catalog sync', SYNC_LOCK),
    oneKey('day partitions', DAY_PARTITIONS_LOCK),
    ...Object.entries(BOT_LOCKS).map(([platform, key]) => oneKey(`${platform} bot holder`, key)),
    ...Array.from({ length: MAX_SHARDS }, (_, slot) => ({ name: `engine slot ${slot}`, classid: SHARD_LOCK_CLASS, objid: slot, objsubid: 2 as const })),
  ];
}

// LISTEN/NOTIFY channels. Payloads are ids only; notices are delivered on commit.

/**
 * Delivery workers and inbox streams; the payload is new notifications' ids, comma separated (up to
 * 200 per notice), or a redelivery notice.
 */
export const DELIVERY_DUE_CHANNEL = 'delivery_due';
/** The engine follows watchlist and subscription edits; the payload is the changed row's id. */
export const WATCHLIST_CHANGED = 'watchlist_changed';
export const SUBSCRIPTION_CHANGED = 'subscription_changed';
/** An engine process joined or left gracefully; the others re-read the members at once. */
export const SHARDS_CHANGED = 'engine_shards_changed';
/** Payload `slot:membersKey`: that member follows every token it owns among those members. */
export const SHARDS_READY = 'engine_shards_ready';

/** An API token was revoked; the payload is its id (the API's token check cache forgets it). */
export const TOKEN_REVOKED = 'api_token_revoked';

/** A catalog sync pass committed (events, markets, tags, prices, volumes): the API's search answers are stale. */
export const CATALOG_CHANGED = 'catalog_changed';

/**
 * The subscription listing of an account changed; the payload is its id. Sent by the listing
 * counter's trigger function (drizzle/0019_*.sql, which spells the name out) only when the writing
 * session listens itself: PGlite's one session, where the API's listing cache follows it.
 */
export const SUBSCRIPTION_LIST_CHANGED = 'subscription_list_changed';

export const NOTIFY_CHANNELS = [
  DELIVERY_DUE_CHANNEL,
  WATCHLIST_CHANGED,
  SUBSCRIPTION_CHANGED,
  SHARDS_CHANGED,
  SHARDS_READY,
  TOKEN_REVOKED,
  CATALOG_CHANGED,
  SUBSCRIPTION_LIST_CHANGED,
] as const;

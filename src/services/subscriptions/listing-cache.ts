import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../db/client.js';
import { SUBSCRIPTION_LIST_CHANGED } from '../../db/coordination.js';
import { FollowedPerDatabase } from '../../db/followed.js';
import type { ServiceContext } from '../context.js';

/** A listing's answer as sent: the JSON bytes and their entity tag. */
export interface CachedJson {
  body: Buffer;
  etag: string;
}

interface Entry extends CachedJson {
  version: string;
}

// Bytes of answers kept per database (100 subscriptions are ~73 KB): the least recently used go
// first. A Map keeps insertion order, which is all an LRU needs here (as the token cache does).
const MAX_BYTES = 16 * 1024 * 1024;

class ListingCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  get(key: string, version: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, entry: Entry): void {
    const old = this.entries.get(key);
    if (old) this.bytes -= old.body.length;
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.bytes += entry.body.length;
    for (const [k, e] of this.entries) {
      if (this.bytes <= MAX_BYTES) break;
      this.entries.delete(k);
      this.bytes -= e.body.length;
    }
  }
}

/**
 * The counter row the catalog's triggers raise for an event title or market question shown in
 * listings (drizzle/0020_*.sql): one row, not every subscribed account's, so the catalog sync's long
 * transaction holds no account's row. Part of every account's version. No account id is '*'.
 */
const CATALOG_WIDE = '*';

const caches = new WeakMap<Database, ListingCache>();

function cacheOf(database: Database): ListingCache {
  let cache = caches.get(database);
  if (!cache) caches.set(database, (cache = new ListingCache()));
  return cache;
}

/**
 * On PGlite, the accounts' listing generations as told by SUBSCRIPTION_LIST_CHANGED notices. The
 * counter's trigger function sends one per changed account when the writing session listens
 * (drizzle/0019_*.sql): on PGlite that is the one session, and PGlite runs its listeners (queued
 * as microtasks while it reads the COMMIT's answer) before the committing call returns. So once
 * a write has returned to its caller, its accounts' generations are already raised: a request
 * after it cannot be answered from an entry kept before it, without reading the counter.
 */
class Generations {
  private static started = 0;
  /** Apart from other followers' generations: an entry kept under one is never current under another. */
  readonly id = ++Generations.started;
  private readonly byAccount = new Map<string, number>();

  raise(accountId: string): void {
    this.byAccount.set(accountId, (this.byAccount.get(accountId) ?? 0) + 1);
  }

  of(accountId: string): string {
    return `n${this.id}:${this.byAccount.get(accountId) ?? 0}:${this.byAccount.get(CATALOG_WIDE) ?? 0}`;
  }
}

const followed = new FollowedPerDatabase<Generations>();

/** Whether listings on this database trust notices (PGlite, once followed) rather than the counter. */
export const listingFollowsNotices = (database: Database): boolean => followed.of(database) !== undefined;

/**
 * Starts trusting SUBSCRIPTION_LIST_CHANGED notices instead of reading the counter per request, on
 * PGlite only (the REST API calls it). On PostgreSQL other processes write too and notices arrive
 * after the commit, asynchronously: the counter is read there. Returns the stop.
 */
export async function startListingNotices(database: Database): Promise<() => Promise<void>> {
  if (database.kind !== 'pglite') return async () => {};
  const generations = new Generations();
  return followed.start(database, SUBSCRIPTION_LIST_CHANGED, generations, (accountId) => generations.raise(accountId));
}

/**
 * An account's answer built by `build` (a listing or one subscription), served from memory while
 * nothing it shows has changed. Database triggers raise the account's subscription_list_versions
 * counter in every transaction that changes anything a listing shows (drizzle/0018_*.sql; a
 * delivery's shown change raises the account's second row, 0026), in whichever process or role writes it, so one indexed read per request tells whether the kept
 * answer is still the current one; on PGlite, once its notices are followed, the generation the
 * notices raise tells it without a read (see Generations). Either is taken before the answer is
 * built, and on PGlite an answer is kept only if no notice came during the build: an answer kept
 * under a version may be newer than it, never older. `build` throws for "not found" (a watchlist
 * or subscription that is not the account's); nothing is kept then.
 */
export async function cachedAccountJson(
  ctx: Pick<ServiceContext, 'database' | 'account' | 'tx'>,
  key: string,
  build: () => Promise<unknown>,
): Promise<CachedJson> {
  // Inside a caller's transaction the answer may show its uncommitted writes: never kept.
  if (ctx.tx) return toCachedJson(await build());
  const accountId = ctx.account.id;
  const cache = cacheOf(ctx.database);
  const fullKey = `${accountId}\n${key}`;
  const generations = followed.of(ctx.database);
  const version = generations ? generations.of(accountId) : await counterVersion(ctx.database, accountId);
  const hit = cache.get(fullKey, version);
  if (hit) return hit;
  const answer = toCachedJson(await build());
  // A counter read before the build can only be older than the answer; a notice during it can be newer.
  if (!generations || generations.of(accountId) === version) cache.set(fullKey, { ...answer, version });
  return answer;
}

/**
 * The suffix of an account's second counter row, the one the deliveries' shown changes raise (the
 * worker's outcomes, drizzle/0026_*.sql), so they and the engine's firing writes lock different rows.
 */
const DELIVERIES_PART = ' deliveries';

/** The account's listing version from the counters: its own row, its deliveries' row and the catalog-wide one. */
async function counterVersion(database: Database, accountId: string): Promise<string> {
  const deliveriesKey = accountId + DELIVERIES_PART;
  const [row] = await queryRows<{ v: string }>(
    database.db,
    sql`select coalesce(max(version) filter (where account_id = ${accountId}), 0)::text || ':' ||
      coalesce(max(version) filter (where account_id = ${deliveriesKey}), 0)::text || ':' ||
      coalesce(max(version) filter (where account_id = ${CATALOG_WIDE}), 0)::text as v
      from subscription_list_versions where account_id in (${accountId}, ${deliveriesKey}, ${CATALOG_WIDE})`,
  );
  return `c${row?.v ?? '0:0:0'}`;
}

function toCachedJson(value: unknown): CachedJson {
  const body = Buffer.from(JSON.stringify(value));
  return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
}

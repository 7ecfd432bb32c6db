import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../db/client.js';
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

const caches = new WeakMap<Database, ListingCache>();

function cacheOf(database: Database): ListingCache {
  let cache = caches.get(database);
  if (!cache) caches.set(database, (cache = new ListingCache()));
  return cache;
}

/**
 * An account's answer built by `build` (a listing or one subscription), served from memory while
 * the account's subscription_list_versions counter is unchanged. Database triggers raise that
 * counter in every transaction that changes anything a listing shows (drizzle/0018_*.sql), in
 * whichever process or role writes it, so one indexed read per request tells whether the kept
 * answer is still the current one. The counter is read before the answer is built: an answer kept
 * under a counter value may be newer than it, never older. `build` throws for "not found" (a
 * watchlist or subscription that is not the account's); nothing is kept then.
 */
export async function cachedAccountJson(
  ctx: Pick<ServiceContext, 'database' | 'account' | 'tx'>,
  key: string,
  build: () => Promise<unknown>,
): Promise<CachedJson> {
  // Inside a caller's transaction the answer may show its uncommitted writes: never kept.
  if (ctx.tx) return toCachedJson(await build());
  const [row] = await queryRows<{ v: string }>(
    ctx.database.db,
    sql`select version::text as v from subscription_list_versions where account_id = ${ctx.account.id}`,
  );
  const version = row?.v ?? '0';
  const cache = cacheOf(ctx.database);
  const fullKey = `${ctx.account.id}\n${key}`;
  const hit = cache.get(fullKey, version);
  if (hit) return hit;
  const answer = toCachedJson(await build());
  cache.set(fullKey, { ...answer, version });
  return answer;
}

function toCachedJson(value: unknown): CachedJson {
  const body = Buffer.from(JSON.stringify(value));
  return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
}

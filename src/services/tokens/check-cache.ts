import type { Database } from '../../db/client.js';
import { TOKEN_REVOKED } from '../../db/coordination.js';
import { FollowedPerDatabase } from '../../db/followed.js';
import type { TokenKind } from '../../domain/enums.js';
import type { AccountRef } from '../context.js';

/** What a token check read from the database, kept to answer the next checks of the same token. */
export interface CheckedToken {
  tokenId: string;
  account: AccountRef;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  kind: TokenKind;
  /** When it was read (ms): entries are read again after MAX_AGE_MS. */
  readAt: number;
}

// A bound on how long a cached check can outlive a revocation whose notice never arrived (a
// listening connection that dropped and reconnected): notices are the rule, this the safety net.
const MAX_AGE_MS = 10_000;
const MAX_ENTRIES = 10_000;

/**
 * Token checks of one database, in memory, for the API's Bearer guard: one lookup per token every
 * few seconds instead of one per request. Revocation stays immediate: revokeToken forgets the token
 * in this process at once, and its TOKEN_REVOKED notice (delivered on commit) makes every process's
 * cache forget it; a check that was reading while a revocation passed is not kept (`generation`).
 * Only a token's revocation changes a check's answer besides its expiry (which is checked on every
 * use): `isAdmin` never changes once set, and the one deletion of an account (an empty chat account
 * removed by `/link`, services/accounts/link-codes.ts) sends TOKEN_REVOKED for each of its tokens.
 */
export class TokenCheckCache {
  private readonly byHash = new Map<string, CheckedToken>();
  /** Bumped by every revocation: a read that started before one may hold the old row. */
  generation = 0;

  get(hash: string, now: number): CheckedToken | undefined {
    const entry = this.byHash.get(hash);
    if (entry && now - entry.readAt > MAX_AGE_MS) {
      this.byHash.delete(hash);
      return undefined;
    }
    return entry;
  }

  set(hash: string, entry: CheckedToken, readSince: number): void {
    if (readSince !== this.generation) return;
    if (this.byHash.size >= MAX_ENTRIES) this.byHash.clear();
    this.byHash.set(hash, entry);
  }

  forget(tokenId: string): void {
    this.generation++;
    for (const [hash, entry] of this.byHash) if (entry.tokenId === tokenId) this.byHash.delete(hash);
  }
}

const followed = new FollowedPerDatabase<TokenCheckCache>();

/** The cache of a database whose revocation notices are being followed, if any. */
export const tokenCheckCache = (database: Database): TokenCheckCache | undefined => followed.of(database);

/**
 * Starts caching token checks on this database, following TOKEN_REVOKED notices from every process
 * (the REST API calls it). Without it each check reads the database. Returns the stop.
 */
export function startTokenCheckCache(database: Database): Promise<() => Promise<void>> {
  const cache = new TokenCheckCache();
  return followed.start(database, TOKEN_REVOKED, cache, (tokenId) => cache.forget(tokenId));
}

import { eq } from 'drizzle-orm';
import { accounts, apiTokens } from '../../db/schema/index.js';
import type { AccountRef, SystemDeps } from '../context.js';
import { unauthorized } from '../errors.js';
import { tokenCheckCache, type CheckedToken, type TokenCheckCache } from './check-cache.js';
import { hashToken, looksLikeToken } from './token-format.js';

// lastUsedAt is written at most this often per token, so reads do not turn into writes.
const LAST_USED_RESOLUTION_MS = 60_000;

export interface Authenticated {
  account: AccountRef;
  tokenId: string;
}

/** Resolves an Authorization header value to an account, or throws `unauthorized` saying why. */
export async function authenticateBearer(deps: SystemDeps, header: string | undefined, now = new Date()): Promise<Authenticated> {
  if (!header) throw unauthorized('Missing Authorization header: send "Authorization: Bearer <token>"');
  const match = /^Bearer ([^\s]+)$/.exec(header.trim());
  if (!match) throw unauthorized('Malformed Authorization header: expected "Bearer <token>"');
  const token = match[1]!;
  if (!looksLikeToken(token)) throw unauthorized('Invalid token');

  const hash = hashToken(token);
  const cache = tokenCheckCache(deps.database);
  const checked = cache?.get(hash, now.getTime()) ?? (await readToken(deps, hash, cache, now));
  if (checked.expiresAt && checked.expiresAt <= now) throw unauthorized('Token has expired');

  if (!checked.lastUsedAt || now.getTime() - checked.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    checked.lastUsedAt = now;
    await deps.database.db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, checked.tokenId));
  }
  return { account: checked.account, tokenId: checked.tokenId };
}

async function readToken(deps: SystemDeps, hash: string, cache: TokenCheckCache | undefined, now: Date): Promise<CheckedToken> {
  const generation = cache?.generation ?? 0;
  const [row] = await deps.database.db
    .select({
      tokenId: apiTokens.id,
      accountId: accounts.id,
      isAdmin: accounts.isAdmin,
      expiresAt: apiTokens.expiresAt,
      revokedAt: apiTokens.revokedAt,
      lastUsedAt: apiTokens.lastUsedAt,
    })
    .from(apiTokens)
    .innerJoin(accounts, eq(accounts.id, apiTokens.accountId))
    .where(eq(apiTokens.tokenHash, hash));
  if (!row) throw unauthorized('Invalid token');
  if (row.revokedAt) throw unauthorized('Token has been revoked');
  const checked: CheckedToken = {
    tokenId: row.tokenId,
    account: { id: row.accountId, isAdmin: row.isAdmin },
    expiresAt: row.expiresAt,
    lastUsedAt: row.lastUsedAt,
    readAt: now.getTime(),
  };
  cache?.set(hash, checked, generation);
  return checked;
}

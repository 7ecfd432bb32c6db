import { eq } from 'drizzle-orm';
import type { TokenKind } from '../../domain/enums.js';
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
  return checkSecret(deps, token, 'token', now);
}

/**
 * Checks an API token or a console session's secret of the given kind: a session's secret is
 * refused as a Bearer token and a token as a session cookie, so each keeps its own protections.
 */
export async function checkSecret(deps: SystemDeps, secret: string, kind: TokenKind, now = new Date()): Promise<Authenticated> {
  const hash = hashToken(secret);
  const cache = tokenCheckCache(deps.database);
  const checked = cache?.get(hash, now.getTime()) ?? (await readToken(deps, hash, cache, now));
  const what = kind === 'session' ? 'Session' : 'Token';
  if (checked.kind !== kind) throw unauthorized(kind === 'session' ? 'Invalid session: sign in again' : 'Invalid token');
  if (checked.expiresAt && checked.expiresAt <= now) throw unauthorized(`${what} has expired`);

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
      kind: apiTokens.kind,
    })
    .from(apiTokens)
    .innerJoin(accounts, eq(accounts.id, apiTokens.accountId))
    .where(eq(apiTokens.tokenHash, hash));
  if (!row) throw unauthorized('Invalid token');
  if (row.revokedAt) throw unauthorized(row.kind === 'session' ? 'Session has ended: sign in again' : 'Token has been revoked');
  const checked: CheckedToken = {
    tokenId: row.tokenId,
    account: { id: row.accountId, isAdmin: row.isAdmin },
    expiresAt: row.expiresAt,
    lastUsedAt: row.lastUsedAt,
    kind: row.kind,
    readAt: now.getTime(),
  };
  cache?.set(hash, checked, generation);
  return checked;
}

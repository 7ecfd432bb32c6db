import { eq } from 'drizzle-orm';
import { accounts, apiTokens } from '../../db/schema/index.js';
import type { AccountRef, SystemDeps } from '../context.js';
import { unauthorized } from '../errors.js';
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
    .where(eq(apiTokens.tokenHash, hashToken(token)));
  if (!row) throw unauthorized('Invalid token');
  if (row.revokedAt) throw unauthorized('Token has been revoked');
  if (row.expiresAt && row.expiresAt <= now) throw unauthorized('Token has expired');

  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await deps.database.db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, row.tokenId));
  }
  return { account: { id: row.accountId, isAdmin: row.isAdmin }, tokenId: row.tokenId };
}

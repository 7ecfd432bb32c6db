import { count, eq, and, isNull, gt, or } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { apiTokens } from '../../db/schema/index.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { limitExceeded } from '../errors.js';
import { newId } from '../ids.js';
import { parseInput } from '../validate.js';
import { CreateTokenInput } from './schemas.js';
import { generateToken } from './token-format.js';

export interface IssuedToken {
  id: string;
  token: string;
  name: string;
  createdAt: Date;
  expiresAt: Date | null;
}

/** Stores a new token for an account; the plain token is returned this once. */
export async function insertToken(
  on: Queryable,
  accountId: string,
  name: string,
  expiresAt: Date | null,
): Promise<IssuedToken> {
  const { token, hash, prefix } = generateToken();
  const [row] = await on
    .insert(apiTokens)
    .values({ id: newId(), accountId, name, prefix, tokenHash: hash, expiresAt })
    .returning();
  return { id: row!.id, token, name: row!.name, createdAt: row!.createdAt, expiresAt: row!.expiresAt };
}

export async function createToken({ ctx, input }: { ctx: ServiceContext; input: CreateTokenInput }): Promise<IssuedToken> {
  const { name, expiresAt } = parseInput(CreateTokenInput, input);
  return withTransaction(ctx, async (tx) => {
    const [live] = await tx
      .select({ n: count() })
      .from(apiTokens)
      .where(
        and(
          eq(apiTokens.accountId, ctx.account.id),
          eq(apiTokens.kind, 'token'),
          isNull(apiTokens.revokedAt),
          or(isNull(apiTokens.expiresAt), gt(apiTokens.expiresAt, new Date())),
        ),
      );
    if ((live?.n ?? 0) >= ctx.config.MAX_TOKENS) {
      throw limitExceeded(
        `Token limit reached: an account may hold ${ctx.config.MAX_TOKENS} active tokens (MAX_TOKENS); revoke one first`,
        'token',
        ctx.config.MAX_TOKENS,
      );
    }
    return insertToken(tx, ctx.account.id, name, expiresAt ?? null);
  });
}

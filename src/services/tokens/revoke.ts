import { and, eq, isNull } from 'drizzle-orm';
import { apiTokens } from '../../db/schema/index.js';
import { dbOf, type ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { parseInput } from '../validate.js';
import { TokenIdInput } from './schemas.js';

export async function revokeToken({ ctx, input }: { ctx: ServiceContext; input: TokenIdInput }): Promise<void> {
  const { tokenId } = parseInput(TokenIdInput, input);
  const revoked = await dbOf(ctx)
    .update(apiTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiTokens.id, tokenId), eq(apiTokens.accountId, ctx.account.id), isNull(apiTokens.revokedAt)))
    .returning({ id: apiTokens.id });
  if (revoked.length === 0) throw notFound('Token not found or already revoked', 'token');
}

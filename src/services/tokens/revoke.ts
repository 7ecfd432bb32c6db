import { and, eq, isNull } from 'drizzle-orm';
import { notifyChange } from '../../db/client.js';
import { TOKEN_REVOKED } from '../../db/coordination.js';
import { apiTokens } from '../../db/schema/index.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { parseInput } from '../validate.js';
import { tokenCheckCache } from './check-cache.js';
import { TokenIdInput } from './schemas.js';

export async function revokeToken({ ctx, input }: { ctx: ServiceContext; input: TokenIdInput }): Promise<void> {
  const { tokenId } = parseInput(TokenIdInput, input);
  await withTransaction(ctx, async (tx) => {
    const revoked = await tx
      .update(apiTokens)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiTokens.id, tokenId), eq(apiTokens.accountId, ctx.account.id), isNull(apiTokens.revokedAt)))
      .returning({ id: apiTokens.id });
    if (revoked.length === 0) throw notFound('Token not found or already revoked', 'token');
    // Every API process's cached check forgets the token when this commits; this one at once too.
    await notifyChange(tx, TOKEN_REVOKED, tokenId);
  });
  tokenCheckCache(ctx.database)?.forget(tokenId);
}

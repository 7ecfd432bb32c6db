import { and, eq } from 'drizzle-orm';
import { apiTokens } from '../../db/schema/index.js';
import { dbOf, type ServiceContext } from '../context.js';
import { validationError } from '../errors.js';
import { revokeToken } from '../tokens/revoke.js';

/** Signs out the session the request came with (a Bearer call has none to end). */
export async function endCurrentSession({ ctx }: { ctx: ServiceContext }): Promise<void> {
  const tokenId = ctx.apiTokenId;
  const [row] = tokenId
    ? await dbOf(ctx)
        .select({ kind: apiTokens.kind })
        .from(apiTokens)
        .where(and(eq(apiTokens.id, tokenId), eq(apiTokens.accountId, ctx.account.id)))
    : [];
  if (!tokenId || row?.kind !== 'session') {
    throw validationError('This request was not made with a session cookie: revoke an API token with DELETE /tokens/{tokenId}');
  }
  await revokeToken({ ctx, input: { tokenId } });
}

import { and, desc, eq, isNull } from 'drizzle-orm';
import type { TokenKind } from '../../domain/enums.js';
import { apiTokens } from '../../db/schema/index.js';
import { dbOf, type ServiceContext } from '../context.js';

export interface TokenSummary {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  /** `session`: a console sign-in (revoking it signs that browser out). */
  kind: TokenKind;
}

/** The account's tokens that are not revoked, newest first (expired ones too, so they can be revoked). */
export async function listTokens({ ctx }: { ctx: ServiceContext }): Promise<TokenSummary[]> {
  return dbOf(ctx)
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      prefix: apiTokens.prefix,
      createdAt: apiTokens.createdAt,
      lastUsedAt: apiTokens.lastUsedAt,
      expiresAt: apiTokens.expiresAt,
      kind: apiTokens.kind,
    })
    .from(apiTokens)
    .where(and(eq(apiTokens.accountId, ctx.account.id), isNull(apiTokens.revokedAt)))
    .orderBy(desc(apiTokens.id));
}

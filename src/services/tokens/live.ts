import { and, gt, inArray, isNull, or } from 'drizzle-orm';
import { apiTokens } from '../../db/schema/index.js';
import type { SystemDeps } from '../context.js';

/** Of the given token ids, those still usable now: neither revoked nor expired (nor deleted). */
export async function liveTokenIds(deps: Pick<SystemDeps, 'database'>, tokenIds: readonly string[], now = new Date()): Promise<Set<string>> {
  if (tokenIds.length === 0) return new Set();
  const rows = await deps.database.db
    .select({ id: apiTokens.id })
    .from(apiTokens)
    .where(
      and(
        inArray(apiTokens.id, [...tokenIds]),
        isNull(apiTokens.revokedAt),
        or(isNull(apiTokens.expiresAt), gt(apiTokens.expiresAt, now)),
      ),
    );
  return new Set(rows.map((r) => r.id));
}

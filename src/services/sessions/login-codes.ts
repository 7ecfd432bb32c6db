import { and, eq, gt, isNull, lt } from 'drizzle-orm';
import { loginCodes } from '../../db/schema/index.js';
import { consoleLoginUrl } from '../../domain/links.js';
import { publicBaseUrl } from '../search/results.js';
import { dbOf, type ServiceContext, type SystemDeps } from '../context.js';
import { unauthorized } from '../errors.js';
import { hashToken } from '../tokens/token-format.js';
import { newLoginCode } from './secrets.js';

export const LOGIN_CODE_TTL_MS = 10 * 60_000;

export interface IssuedLoginCode {
  code: string;
  /** The console's sign-in page with the code: PUBLIC_URL, else this service's own address. */
  url: string;
  expiresAt: Date;
}

/** A one-time sign-in code for the calling account, valid 10 minutes (for `/login` in a chat). */
export async function issueLoginCode({ ctx, now = new Date() }: { ctx: ServiceContext; now?: Date }): Promise<IssuedLoginCode> {
  const code = newLoginCode();
  const expiresAt = new Date(now.getTime() + LOGIN_CODE_TTL_MS);
  const db = dbOf(ctx);
  // Spent and expired codes have no further use: each issue sweeps the account's old ones.
  await db.delete(loginCodes).where(and(eq(loginCodes.accountId, ctx.account.id), lt(loginCodes.expiresAt, now)));
  await db.insert(loginCodes).values({ codeHash: hashToken(code), accountId: ctx.account.id, expiresAt });
  return { code, url: consoleLoginUrl(publicBaseUrl(ctx.config), code), expiresAt };
}

/** Spends a code: one statement checks and marks it, so two redemptions cannot both succeed. */
export async function redeemLoginCode(deps: Pick<SystemDeps, 'database'>, code: string, now: Date): Promise<string> {
  const [row] = await deps.database.db
    .update(loginCodes)
    .set({ usedAt: now })
    .where(and(eq(loginCodes.codeHash, hashToken(code)), isNull(loginCodes.usedAt), gt(loginCodes.expiresAt, now)))
    .returning({ accountId: loginCodes.accountId });
  if (!row) throw unauthorized('This sign-in link is invalid, used or expired (links work once, for 10 minutes): send /login again');
  return row.accountId;
}

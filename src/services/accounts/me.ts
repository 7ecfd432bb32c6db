import { eq } from 'drizzle-orm';
import { accounts } from '../../db/schema/index.js';
import { dbOf, type ServiceContext } from '../context.js';
import { notFound } from '../errors.js';

export interface Me {
  userId: string;
  createdAt: Date;
  links: { discord: string | null; telegram: string | null };
}

export async function getMe({ ctx }: { ctx: ServiceContext }): Promise<Me> {
  // Only the columns shown: each field read costs a decode through PGlite.
  const [row] = await dbOf(ctx)
    .select({ id: accounts.id, createdAt: accounts.createdAt, discordUserId: accounts.discordUserId, telegramUserId: accounts.telegramUserId })
    .from(accounts)
    .where(eq(accounts.id, ctx.account.id));
  if (!row) throw notFound('Account not found', 'account');
  return {
    userId: row.id,
    createdAt: row.createdAt,
    links: { discord: row.discordUserId, telegram: row.telegramUserId },
  };
}

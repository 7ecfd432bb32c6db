import { eq } from 'drizzle-orm';
import { accounts } from '../../db/schema/index.js';
import { dbOf, type ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { newWebhookSecret } from '../ids.js';

export async function getWebhookSecret({ ctx }: { ctx: ServiceContext }): Promise<{ secret: string }> {
  const [row] = await dbOf(ctx)
    .select({ secret: accounts.webhookSecret })
    .from(accounts)
    .where(eq(accounts.id, ctx.account.id));
  if (!row) throw notFound('Account not found', 'account');
  return { secret: row.secret };
}

/** A new secret signs every delivery from now on, retries of older notifications included. */
export async function rotateWebhookSecret({ ctx }: { ctx: ServiceContext }): Promise<{ secret: string }> {
  const secret = newWebhookSecret();
  await dbOf(ctx).update(accounts).set({ webhookSecret: secret }).where(eq(accounts.id, ctx.account.id));
  return { secret };
}

import { eq, sql } from 'drizzle-orm';
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

/**
 * A new secret signs every delivery from now on, retries of older notifications included. The
 * replaced one keeps signing alongside it for WEBHOOK_SECRET_GRACE_MS, so receivers can switch
 * without missing alerts; a second rotation within the window drops the oldest at once.
 */
export async function rotateWebhookSecret({ ctx }: { ctx: ServiceContext }): Promise<{ secret: string }> {
  const secret = newWebhookSecret();
  await dbOf(ctx)
    .update(accounts)
    // In one UPDATE the right-hand column is the value before it, so no rotation is lost to a race.
    .set({ previousWebhookSecret: sql`${accounts.webhookSecret}`, webhookSecret: secret, webhookSecretRotatedAt: new Date() })
    .where(eq(accounts.id, ctx.account.id));
  return { secret };
}

/** The replaced secret while its grace window lasts, else undefined. */
export function previousSecretInGrace(
  stored: { previousWebhookSecret: string | null; rotatedAtMs: number | null },
  graceMs: number,
  nowMs = Date.now(),
): string | undefined {
  const { previousWebhookSecret, rotatedAtMs } = stored;
  if (!previousWebhookSecret || rotatedAtMs === null) return undefined;
  return nowMs - rotatedAtMs < graceMs ? previousWebhookSecret : undefined;
}

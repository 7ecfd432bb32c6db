import { sql } from 'drizzle-orm';
import type { Queryable } from '../db/client.js';
import type { ChannelStatus } from '../domain/enums.js';

/**
 * Mirrors a delivery status onto the subscription's channel at `positions`, unless a later
 * notification of the same subscription exists (the channel shows its latest delivery).
 */
export async function setChannelStatus(
  tx: Queryable,
  notification: { id: string; accountId: string; subscriptionId: string | null },
  positions: number[],
  status: ChannelStatus,
) {
  if (!notification.subscriptionId || positions.length === 0) return;
  await tx.execute(sql`
    update subscription_channels set status = ${status}
    where subscription_id = ${notification.subscriptionId}
      and position in (${sql.join(positions.map((p) => sql`${p}::int`), sql`, `)})
      and not exists (
        select 1 from notifications later
        where later.account_id = ${notification.accountId} and later.subscription_id = ${notification.subscriptionId}
          and later.id > ${notification.id})`);
}

import { and, eq, isNull } from 'drizzle-orm';
import { deliveries, notifications } from '../../db/schema/index.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { parseInput } from '../validate.js';
import { requireOwnedNotification } from './owned.js';
import { NotificationIdInput } from './schemas.js';

/** Marks the inbox entry read: its In App delivery and channel become READ. Idempotent. */
export async function markNotificationRead({ ctx, input }: { ctx: ServiceContext; input: NotificationIdInput }): Promise<Record<string, never>> {
  const { notificationId } = parseInput(NotificationIdInput, input);
  await withTransaction(ctx, async (tx) => {
    await requireOwnedNotification(tx, ctx.account.id, notificationId);
    await tx
      .update(notifications)
      .set({ readAt: new Date() })
      .where(and(eq(notifications.id, notificationId), isNull(notifications.readAt)));
    await tx
      .update(deliveries)
      .set({ status: 'READ', leaseUntil: null, updatedAt: new Date() })
      .where(and(eq(deliveries.notificationId, notificationId), eq(deliveries.channelType, 'In App')));
  });
  return {};
}

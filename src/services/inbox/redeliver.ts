import { and, eq, inArray } from 'drizzle-orm';
import { notifyChange } from '../../db/client.js';
import { deliveries } from '../../db/schema/index.js';
import { DELIVERY_DUE_CHANNEL } from '../../db/coordination.js';
import { REDELIVER_NOTICE_PREFIX } from '../../delivery/enqueue.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { conflict } from '../errors.js';
import { parseInput } from '../validate.js';
import { requireOwnedNotification } from './owned.js';
import { NotificationIdInput } from './schemas.js';

/**
 * Queues the FAILED and BLOCKED_BY_USER deliveries of a notification again, from attempt 1, each
 * on its own (a delivery that was part of a summary is sent as its own alert now).
 */
export async function redeliverNotification({ ctx, input }: { ctx: ServiceContext; input: NotificationIdInput }): Promise<Record<string, never>> {
  const { notificationId } = parseInput(NotificationIdInput, input);
  await withTransaction(ctx, async (tx) => {
    await requireOwnedNotification(tx, ctx.account.id, notificationId);
    const requeued = await tx
      .update(deliveries)
      .set({ status: 'PENDING', attempts: 0, dueAt: new Date(), leaseUntil: null, lastError: null, batchKey: null, updatedAt: new Date() })
      .where(and(eq(deliveries.notificationId, notificationId), inArray(deliveries.status, ['FAILED', 'BLOCKED_BY_USER'])))
      .returning({ position: deliveries.position });
    if (requeued.length === 0) throw conflict('This notification has no failed deliveries to send again');
    await notifyChange(tx, DELIVERY_DUE_CHANNEL, `${REDELIVER_NOTICE_PREFIX}${notificationId}`);
  });
  return {};
}

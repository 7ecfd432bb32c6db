import { and, eq, lt } from 'drizzle-orm';
import { notifications, subscriptions } from '../../db/schema/index.js';
import { dbOf, type ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { SUBSCRIPTION_NOT_FOUND } from '../subscriptions/owned.js';
import { parseInput } from '../validate.js';
import { deliveriesOf, type DeliveryView } from './deliveries.js';
import { notificationPage } from './list.js';
import { SubscriptionHistoryInput } from './schemas.js';
import { toNotificationView, type NotificationView } from './view.js';

export interface HistoryEntry extends NotificationView {
  /** When the engine saw the condition met: the payload's detectedAt, else when it was stored. */
  detectedAt: string;
  deliveries: DeliveryView[];
}

/**
 * A rule's firings, newest first (ids are time-ordered uuid v7), a page at a time, each with every
 * channel's delivery and attempts: "did it fire, and did it arrive?". Four queries a page.
 */
export async function listSubscriptionHistory({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: SubscriptionHistoryInput;
}): Promise<{ notifications: HistoryEntry[]; nextBefore: string | null }> {
  const { subscriptionId, limit, before } = parseInput(SubscriptionHistoryInput, input);
  const db = dbOf(ctx);
  // Not requireOwnedSubscription: that one locks the row for a change, and a read must not.
  const [owned] = await db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(and(eq(subscriptions.id, subscriptionId), eq(subscriptions.accountId, ctx.account.id)));
  if (!owned) throw notFound(SUBSCRIPTION_NOT_FOUND, 'subscription');
  const conditions = [eq(notifications.subscriptionId, subscriptionId), eq(notifications.accountId, ctx.account.id)];
  if (before) conditions.push(lt(notifications.id, before));
  const { page, nextBefore } = await notificationPage(db, conditions, limit);
  const delivered = await deliveriesOf(
    db,
    page.map((r) => r.id),
  );
  return {
    notifications: page.map((row) => {
      const view = toNotificationView(row);
      const detectedAt = typeof row.payload.detectedAt === 'string' ? row.payload.detectedAt : view.createdAt;
      return { ...view, detectedAt, deliveries: delivered.get(row.id) ?? [] };
    }),
    nextBefore,
  };
}

import { and, desc, eq, lt } from 'drizzle-orm';
import { notifications, subscriptions } from '../../db/schema/index.js';
import type { ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { SUBSCRIPTION_NOT_FOUND } from '../subscriptions/owned.js';
import { parseInput } from '../validate.js';
import { deliveriesOf, type DeliveryView } from './deliveries.js';
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
  input: unknown;
}): Promise<{ notifications: HistoryEntry[]; nextBefore: string | null }> {
  const { subscriptionId, limit, before } = parseInput(SubscriptionHistoryInput, input);
  const { db } = ctx.database;
  // Not requireOwnedSubscription: that one locks the row for a change, and a read must not.
  const [owned] = await db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(and(eq(subscriptions.id, subscriptionId), eq(subscriptions.accountId, ctx.account.id)));
  if (!owned) throw notFound(SUBSCRIPTION_NOT_FOUND, 'subscription');
  const conditions = [eq(notifications.subscriptionId, subscriptionId), eq(notifications.accountId, ctx.account.id)];
  if (before) conditions.push(lt(notifications.id, before));
  const rows = await db
    .select()
    .from(notifications)
    .where(and(...conditions))
    .orderBy(desc(notifications.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
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
    nextBefore: rows.length > limit ? page[page.length - 1]!.id : null,
  };
}

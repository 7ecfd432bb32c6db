import { asc, inArray } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { deliveries, deliveryAttempts } from '../../db/schema/index.js';
import type { ChannelStatus, ChannelType } from '../../domain/enums.js';
import { dbOf, type ServiceContext } from '../context.js';
import { parseInput } from '../validate.js';
import { requireOwnedNotification } from './owned.js';
import { NotificationIdInput } from './schemas.js';

export interface DeliveryView {
  id: string;
  channel: ChannelType;
  status: ChannelStatus;
  attempts: { at: string; statusCode: number | null; error: string | null; durationMs: number }[];
}

/** Each channel's delivery of one notification with every attempt made, oldest first. */
export async function listDeliveries({ ctx, input }: { ctx: ServiceContext; input: NotificationIdInput }): Promise<DeliveryView[]> {
  const { notificationId } = parseInput(NotificationIdInput, input);
  const db = dbOf(ctx);
  await requireOwnedNotification(db, ctx.account.id, notificationId);
  return (await deliveriesOf(db, [notificationId])).get(notificationId) ?? [];
}

/**
 * The deliveries of several notifications in two queries whatever their number (a page of a
 * rule's history): notification id → its deliveries in channel order, each with its attempts.
 */
export async function deliveriesOf(on: Queryable, notificationIds: string[]): Promise<Map<string, DeliveryView[]>> {
  const byNotification = new Map<string, DeliveryView[]>(notificationIds.map((id) => [id, []]));
  if (notificationIds.length === 0) return byNotification;
  const rows = await on
    .select()
    .from(deliveries)
    .where(inArray(deliveries.notificationId, notificationIds))
    .orderBy(asc(deliveries.notificationId), asc(deliveries.position));
  if (rows.length === 0) return byNotification;
  const attempts = await on
    .select()
    .from(deliveryAttempts)
    .where(inArray(deliveryAttempts.deliveryId, rows.map((r) => r.id)))
    .orderBy(asc(deliveryAttempts.id));
  const views = new Map<string, DeliveryView>();
  for (const d of rows) {
    const view: DeliveryView = { id: d.id, channel: d.channelType, status: d.status, attempts: [] };
    views.set(d.id, view);
    byNotification.get(d.notificationId)?.push(view);
  }
  for (const a of attempts) {
    views.get(a.deliveryId)?.attempts.push({ at: a.at.toISOString(), statusCode: a.statusCode, error: a.error, durationMs: a.durationMs });
  }
  return byNotification;
}

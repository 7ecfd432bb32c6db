import { asc, eq, inArray } from 'drizzle-orm';
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
  const rows = await db.select().from(deliveries).where(eq(deliveries.notificationId, notificationId)).orderBy(asc(deliveries.position));
  const attempts =
    rows.length === 0
      ? []
      : await db
          .select()
          .from(deliveryAttempts)
          .where(inArray(deliveryAttempts.deliveryId, rows.map((r) => r.id)))
          .orderBy(asc(deliveryAttempts.id));
  return rows.map((d) => ({
    id: d.id,
    channel: d.channelType,
    status: d.status,
    attempts: attempts
      .filter((a) => a.deliveryId === d.id)
      .map((a) => ({ at: a.at.toISOString(), statusCode: a.statusCode, error: a.error, durationMs: a.durationMs })),
  }));
}

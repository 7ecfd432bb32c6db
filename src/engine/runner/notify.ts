import { sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { deliveries, notifications, subscriptionChannels, type ChannelSettings } from '../../db/schema/index.js';
import type { ChannelType, NotificationType } from '../../domain/enums.js';
import { newId } from '../../services/ids.js';

export const DELIVERY_DUE = 'delivery_due';

export interface ChannelRow {
  position: number;
  type: ChannelType;
  settings: ChannelSettings | null;
}

export interface NewNotification {
  accountId: string;
  subscriptionId: string;
  type: NotificationType;
  payload: Record<string, unknown>;
  dedupeKey: string;
  channels: readonly ChannelRow[];
}

/** The payload's `channels`: each channel's type and settings, as the subscription lists them. */
export function payloadChannels(channels: readonly ChannelRow[]) {
  return channels.map((c) => ({
    type: c.type,
    ...(c.settings && Object.keys(c.settings).length > 0 ? { settings: c.settings } : {}),
  }));
}

/**
 * Writes one notification and one PENDING delivery per channel, marks the channels PENDING and
 * wakes the delivery worker. Answers the notification id, or null when the dedupe key was already
 * written (a replayed firing). Kept in one function so the delivery module can take it over.
 */
export async function insertNotificationWithDeliveries(tx: Tx, n: NewNotification): Promise<string | null> {
  const id = newId();
  const inserted = await tx
    .insert(notifications)
    .values({ id, accountId: n.accountId, subscriptionId: n.subscriptionId, type: n.type, payload: n.payload, dedupeKey: n.dedupeKey })
    .onConflictDoNothing({ target: notifications.dedupeKey })
    .returning({ id: notifications.id });
  if (inserted.length === 0) return null;
  if (n.channels.length > 0) {
    await tx.insert(deliveries).values(
      n.channels.map((c) => ({
        id: newId(),
        notificationId: id,
        position: c.position,
        channelType: c.type,
        settings: c.settings ?? {},
        status: 'PENDING' as const,
      })),
    );
    await tx
      .update(subscriptionChannels)
      .set({ status: 'PENDING' })
      .where(sql`${subscriptionChannels.subscriptionId} = ${n.subscriptionId}`);
  }
  await tx.execute(sql`select pg_notify(${DELIVERY_DUE}, ${id})`);
  return id;
}

/** True for PostgreSQL's unique violation (a racing writer of the same dedupe key). */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}

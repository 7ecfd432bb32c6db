import { and, eq, inArray } from 'drizzle-orm';
import { inTransaction, notifyChange, type Queryable } from '../db/client.js';
import { deliveries, notifications, subscriptionChannels } from '../db/schema/index.js';
import type { ChannelSettings } from '../db/schema/subscriptions.js';
import type { ChannelType, NotificationType } from '../domain/enums.js';
import { newId } from '../services/ids.js';

/** The channel LISTENed to by delivery workers and inbox streams; the payload is a notification id. */
export const DELIVERY_DUE_CHANNEL = 'delivery_due';
/** A redelivery wakes the workers too, but is not a new notification for the inbox streams. */
export const REDELIVER_NOTICE_PREFIX = 'redeliver:';

export interface NotificationToWrite {
  accountId: string;
  subscriptionId: string | null;
  type: NotificationType;
  /** The spec's payload, stored and sent exactly as given. */
  payload: Record<string, unknown>;
  /** One firing per subscription, market and detection: a replay returns the first write. */
  dedupeKey: string;
  /** The subscription's channels in order; the index is the channel's position. */
  channels: { type: ChannelType; settings?: ChannelSettings | null }[];
}

/**
 * Writes a notification and its deliveries (the outbox) in the caller's transaction, or its own,
 * and answers the notification id (the first write's id when the dedupe key was seen before).
 */
export async function writeNotification(on: Queryable, input: NotificationToWrite): Promise<string> {
  const id = await inTransaction(on, (tx) => writeNotificationOnce(tx, input));
  if (id !== null) return id;
  const [existing] = await on
    .select({ id: notifications.id })
    .from(notifications)
    .where(eq(notifications.dedupeKey, input.dedupeKey));
  return existing!.id;
}

/**
 * The outbox write itself: null when the dedupe key was written before (a replayed firing), so
 * the caller can skip the state changes that belong to the first write. ON CONFLICT DO NOTHING
 * also waits out a racing writer of the same key instead of aborting the transaction.
 */
export async function writeNotificationOnce(tx: Queryable, input: NotificationToWrite): Promise<string | null> {
  const id = newId();
  const inserted = await tx
    .insert(notifications)
    .values({
      id,
      accountId: input.accountId,
      subscriptionId: input.subscriptionId,
      type: input.type,
      payload: input.payload,
      dedupeKey: input.dedupeKey,
    })
    .onConflictDoNothing({ target: notifications.dedupeKey })
    .returning({ id: notifications.id });
  if (inserted.length === 0) return null;
  if (input.channels.length > 0) {
    await tx.insert(deliveries).values(
      input.channels.map((channel, position) => ({
        id: newId(),
        notificationId: id,
        position,
        channelType: channel.type,
        settings: channel.settings ?? null,
        status: 'PENDING' as const,
      })),
    );
    if (input.subscriptionId) {
      await tx
        .update(subscriptionChannels)
        .set({ status: 'PENDING' })
        .where(
          and(
            eq(subscriptionChannels.subscriptionId, input.subscriptionId),
            inArray(
              subscriptionChannels.position,
              input.channels.map((_, position) => position),
            ),
          ),
        );
    }
  }
  await notifyChange(tx, DELIVERY_DUE_CHANNEL, id);
  return id;
}

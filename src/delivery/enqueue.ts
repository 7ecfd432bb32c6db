import { eq } from 'drizzle-orm';
import { inTransaction, notifyChanges, type Queryable } from '../db/client.js';
import { DELIVERY_DUE_CHANNEL } from '../db/coordination.js';
import { deliveries, notifications } from '../db/schema/index.js';
import type { ChannelSettings } from '../db/schema/subscriptions.js';
import type { ChannelType, NotificationType } from '../domain/enums.js';
import { newId } from '../services/ids.js';

/** A redelivery wakes the workers too, but is not a new notification for the inbox streams. */
export const REDELIVER_NOTICE_PREFIX = 'redeliver:';

const DELIVERY_ROWS_PER_INSERT = 5000;

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
  const [id] = await writeNotificationsOnce(tx, [input]);
  return id ?? null;
}

/**
 * Several outbox writes in a fixed number of statements, whatever their count: each answer is the
 * new notification id, or null where the key was written before (or earlier in the same list).
 */
export async function writeNotificationsOnce(tx: Queryable, inputs: readonly NotificationToWrite[]): Promise<(string | null)[]> {
  if (inputs.length === 0) return [];
  const rows = inputs.map((input) => ({
    id: newId(),
    accountId: input.accountId,
    subscriptionId: input.subscriptionId,
    type: input.type,
    payload: input.payload,
    dedupeKey: input.dedupeKey,
  }));
  const inserted = await tx
    .insert(notifications)
    .values(rows)
    .onConflictDoNothing({ target: notifications.dedupeKey })
    .returning({ id: notifications.id });
  const insertedIds = new Set(inserted.map((r) => r.id));
  const ids = rows.map((row) => (insertedIds.has(row.id) ? row.id : null));
  const written = inputs.flatMap((input, i) => (ids[i] ? [{ input, id: ids[i] }] : []));
  if (written.length === 0) return ids;

  const deliveryRows = written.flatMap(({ input, id }) =>
    input.channels.map((channel, position) => ({
      id: newId(),
      notificationId: id,
      position,
      channelType: channel.type,
      settings: channel.settings ?? null,
      status: 'PENDING' as const,
    })),
  );
  // In chunks: PostgreSQL takes at most 65,535 parameters per statement (6 per row here), and a
  // batch of firings times up to MAX_CHANNELS_PER_SUBSCRIPTION channels can pass that.
  for (let start = 0; start < deliveryRows.length; start += DELIVERY_ROWS_PER_INSERT) {
    await tx.insert(deliveries).values(deliveryRows.slice(start, start + DELIVERY_ROWS_PER_INSERT));
  }

  await notifyChanges(
    tx,
    DELIVERY_DUE_CHANNEL,
    written.map((w) => w.id),
  );
  return ids;
}

import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import { inTransaction, notifyChanges, type Queryable } from '../db/client.js';
import { DELIVERY_DUE_CHANNEL } from '../db/coordination.js';
import { accountPreferences, deliveryAttempts, notifications, subscriptionPreferences } from '../db/schema/index.js';
import { insertDeliveries, insertNotifications } from './outbox-insert.js';
import { quietHoursEnd } from '../domain/quiet-hours.js';
import type { ChannelSettings } from '../db/schema/subscriptions.js';
import type { ChannelType, NotificationType } from '../domain/enums.js';
import { newId } from '../services/ids.js';

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
  const [id] = await writeNotificationsOnce(tx, [input]);
  return id ?? null;
}

/**
 * Several outbox writes in a fixed number of statements, whatever their count: each answer is the
 * new notification id, or null where the key was written before (or earlier in the same list).
 */
export async function writeNotificationsOnce(tx: Queryable, inputs: readonly NotificationToWrite[]): Promise<(string | null)[]> {
  if (inputs.length === 0) return [];
  const snoozes = await snoozedSubscriptions(tx, inputs);
  const quiet = await quietHoursOf(tx, inputs);
  const nowMs = Date.now();
  const rows = inputs.map((input) => ({
    id: newId(),
    accountId: input.accountId,
    subscriptionId: input.subscriptionId,
    type: input.type,
    payload: input.payload,
    dedupeKey: input.dedupeKey,
    snoozedUntil: (input.subscriptionId && snoozes.get(input.subscriptionId)) || null,
  }));
  const insertedIds = await insertNotifications(tx, rows);
  const ids = rows.map((row) => (insertedIds.has(row.id) ? row.id : null));
  const written = inputs.flatMap((input, i) => (ids[i] ? [{ input, id: ids[i] }] : []));
  if (written.length === 0) return ids;

  const snoozedIds = new Map(rows.flatMap((row) => (row.snoozedUntil ? [[row.id, row.snoozedUntil] as const] : [])));
  const deliveryRows = written.flatMap(({ input, id }) => {
    const snoozedUntil = snoozedIds.get(id);
    return input.channels.map((channel, position) => {
      // Snoozed: the inbox keeps the firing, the other channels are recorded unsent with the reason,
      // as a disabled channel's are (FAILED, so "redeliver" can still send them on request).
      const held = snoozedUntil !== undefined && channel.type !== 'In App';
      // Quiet hours hold a channel's delivery (not drop it): it is due when they end.
      const hush = quiet.get(input.accountId);
      const quietEnd = !held && hush && hush.channels.includes(channel.type) ? quietHoursEnd(nowMs, hush.timezone, hush) : null;
      return {
        id: newId(),
        notificationId: id,
        position,
        channelType: channel.type,
        settings: channel.settings ?? null,
        status: held ? ('FAILED' as const) : ('PENDING' as const),
        ...(held ? { lastError: snoozedError(snoozedUntil) } : {}),
        ...(quietEnd !== null ? { dueAt: new Date(quietEnd) } : {}),
      };
    });
  });
  await insertDeliveries(tx, deliveryRows);

  const unsent = deliveryRows.filter((d) => d.status === 'FAILED');
  if (unsent.length > 0) {
    await tx.insert(deliveryAttempts).values(unsent.map((d) => ({ deliveryId: d.id, statusCode: null, error: d.lastError ?? null, durationMs: 0 })));
  }

  await notifyDue(
    tx,
    written.map((w) => w.id),
  );
  return ids;
}

/** Ids per notice: 200 uuids and their commas stay under PostgreSQL's 8,000-byte payload limit. */
const IDS_PER_NOTICE = 200;

/**
 * Tells the workers and the inbox streams, on commit, of new notifications: one notice per up to
 * 200 ids (comma separated), not one per notification. At 1,000 firings/s a notice each was 1,000
 * notices/s for the server to queue and fan out and for every listener to parse and act on.
 */
function notifyDue(tx: Queryable, ids: readonly string[]) {
  const notices: string[] = [];
  for (let start = 0; start < ids.length; start += IDS_PER_NOTICE) notices.push(ids.slice(start, start + IDS_PER_NOTICE).join(','));
  return notifyChanges(tx, DELIVERY_DUE_CHANNEL, notices);
}

export function snoozedError(until: Date): string {
  return `Not sent: the subscription is snoozed until ${until.toISOString()}`;
}

/** The snoozes in force now of the inputs' subscriptions: one query, none when no input has one. */
async function snoozedSubscriptions(tx: Queryable, inputs: readonly NotificationToWrite[]): Promise<Map<string, Date>> {
  const ids = [...new Set(inputs.flatMap((i) => (i.subscriptionId ? [i.subscriptionId] : [])))];
  if (ids.length === 0) return new Map();
  const rows = await tx
    .select({ id: subscriptionPreferences.subscriptionId, until: subscriptionPreferences.snoozedUntil })
    .from(subscriptionPreferences)
    .where(and(inArray(subscriptionPreferences.subscriptionId, ids), gt(subscriptionPreferences.snoozedUntil, sql`now()`)));
  return new Map(rows.flatMap((r) => (r.until ? [[r.id, r.until] as const] : [])));
}

type AccountQuietHours = { timezone: string; start: string; end: string; channels: ChannelType[] };

/** The quiet hours of the inputs' accounts that have any: one query, none without a chat channel. */
async function quietHoursOf(tx: Queryable, inputs: readonly NotificationToWrite[]): Promise<Map<string, AccountQuietHours>> {
  const ids = [...new Set(inputs.flatMap((i) => (i.channels.some((c) => c.type !== 'In App') ? [i.accountId] : [])))];
  if (ids.length === 0) return new Map();
  const rows = await tx
    .select({ id: accountPreferences.accountId, timezone: accountPreferences.timezone, quietHours: accountPreferences.quietHours })
    .from(accountPreferences)
    .where(inArray(accountPreferences.accountId, ids));
  return new Map(rows.flatMap((r) => (r.quietHours ? [[r.id, { timezone: r.timezone, ...r.quietHours }] as const] : [])));
}

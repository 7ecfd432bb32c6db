import { eq, sql } from 'drizzle-orm';
import { inTransaction, prepared, queryRows, type Queryable } from '../db/client.js';
import { DELIVERY_DUE_CHANNEL } from '../db/coordination.js';
import { deliveryAttempts, notifications } from '../db/schema/index.js';
import { DEFAULT_DIGEST_HOUR } from '../config.js';
import { decideBatches, type AccountQuietHours, type BurstSettings } from './batches.js';
import type { HandoffWrite } from './handoff.js';
import { insertDeliveries, insertDeliveriesLeased, insertNotifications, type DeliveryRow } from './outbox-insert.js';
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
export async function writeNotificationOnce(tx: Queryable, input: NotificationToWrite, batching?: BatchingOptions): Promise<string | null> {
  const [id] = await writeNotificationsOnce(tx, [input], batching);
  return id ?? null;
}

/** How the outbox groups deliveries into batched sends (batches.ts); the settings of that name. */
export interface BatchingOptions {
  /** DIGEST_HOUR. */
  digestHour: number;
  /** BURST_MAX and BURST_WINDOW_MS; absent, no burst grouping (the engine's writes pass them). */
  burst?: BurstSettings;
  /** The clock of quiet hours, digests and burst windows (tests move it across a DST change). */
  now?: () => number;
}

/** Quiet hours and digests act without settings; bursts only where the writer passes them. */
const DEFAULT_BATCHING: BatchingOptions = { digestHour: DEFAULT_DIGEST_HOUR };

/**
 * Several outbox writes in a fixed number of statements, whatever their count: each answer is the
 * new notification id, or null where the key was written before (or earlier in the same list).
 */
export async function writeNotificationsOnce(
  tx: Queryable,
  inputs: readonly NotificationToWrite[],
  batching: BatchingOptions = DEFAULT_BATCHING,
  /** Leases the deliveries due now to this process's worker, which sends them after the commit (handoff.ts). */
  handoff?: HandoffWrite,
): Promise<(string | null)[]> {
  if (inputs.length === 0) return [];
  const prefs = await preferencesOf(tx, inputs);
  const snoozes = prefs.snoozes;
  const nowMs = (batching.now ?? Date.now)();
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
  const planned = written.flatMap(({ input, id }) => {
    const snoozedUntil = snoozedIds.get(id);
    return input.channels.map((channel, position) => {
      // Snoozed: the inbox keeps the firing, the other channels are recorded unsent with the reason,
      // as a disabled channel's are (FAILED, so "redeliver" can still send them on request).
      const held = snoozedUntil !== undefined && channel.type !== 'In App';
      return {
        input,
        row: {
          id: newId(),
          notificationId: id,
          position,
          channelType: channel.type,
          settings: channel.settings ?? null,
          status: held ? ('FAILED' as const) : ('PENDING' as const),
          ...(held ? { lastError: snoozedError(snoozedUntil) } : {}),
        },
      };
    });
  });
  // Quiet hours, digests and bursts hold a delivery (never drop it) for one summary send.
  const batchable = planned.filter((p) => p.row.status === 'PENDING');
  const decisions = await decideBatches(
    tx,
    batchable.map(({ input, row }) => ({ accountId: input.accountId, subscriptionId: input.subscriptionId, channelType: row.channelType, settings: row.settings })),
    {
      nowMs,
      quietHours: prefs.quietHours,
      timezones: prefs.timezones,
      digests: prefs.digests,
      digestHour: batching.digestHour,
      ...(batching.burst ? { burst: batching.burst } : {}),
    },
  );
  const batched = new Map(batchable.flatMap((p, i) => (decisions[i] ? [[p.row.id, decisions[i]] as const] : [])));
  const deliveryRows = planned.map(({ row }) => ({ ...row, ...batched.get(row.id) }));
  // The notices naming the new notifications go with the deliveries' insert (delivered on commit).
  const dueNotices = { channel: DELIVERY_DUE_CHANNEL, payloads: notices(written.map((w) => w.id)) };
  if (handoff) await handOff(tx, handoff, written, deliveryRows, dueNotices);
  else await insertDeliveries(tx, deliveryRows, dueNotices);

  const unsent = deliveryRows.filter((d) => d.status === 'FAILED');
  if (unsent.length > 0) {
    await tx.insert(deliveryAttempts).values(unsent.map((d) => ({ deliveryId: d.id, statusCode: null, error: d.lastError ?? null, durationMs: 0 })));
  }

  return ids;
}

/**
 * The deliveries' insert when this process's worker takes what it has slots for: those due now and
 * sent alone (not held for a batch) are leased to it in the insert, which answers their send context.
 */
async function handOff(
  tx: Queryable,
  handoff: HandoffWrite,
  written: readonly { id: string }[],
  rows: readonly DeliveryRow[],
  dueNotices: { channel: string; payloads: readonly string[] },
): Promise<void> {
  const due = rows.filter((d) => d.status === 'PENDING' && !d.batchKey && !d.dueAt);
  const leased = new Set(due.slice(0, handoff.reserve(due.length)).map((d) => d.id));
  if (leased.size === 0) return insertDeliveries(tx, rows, dueNotices);
  const claims = await insertDeliveriesLeased(tx, rows, dueNotices, leased, handoff.leaseMs);
  // A notification with a due delivery not leased still needs its notice to wake a claim.
  const waiting = new Set(rows.filter((d) => d.status === 'PENDING' && !leased.has(d.id)).map((d) => d.notificationId));
  handoff.leased(claims, written.flatMap((w) => (waiting.has(w.id) ? [] : [w.id])));
}

/** Ids per notice: 200 uuids and their commas stay under PostgreSQL's 8,000-byte payload limit. */
const IDS_PER_NOTICE = 200;

/**
 * The notices that tell the workers and the inbox streams, on commit, of new notifications: one
 * per up to 200 ids (comma separated), not one per notification. At 1,000 firings/s a notice each
 * was 1,000 notices/s for the server to queue and fan out and for every listener to parse and act on.
 */
function notices(ids: readonly string[]): string[] {
  const payloads: string[] = [];
  for (let start = 0; start < ids.length; start += IDS_PER_NOTICE) payloads.push(ids.slice(start, start + IDS_PER_NOTICE).join(','));
  return payloads;
}

export function snoozedError(until: Date): string {
  return `Not sent: the subscription is snoozed until ${until.toISOString()}`;
}

/**
 * What a write needs of preferences, in one statement (none when no input needs any): the inputs'
 * subscriptions' snoozes in force now and digest modes, and the time zones and quiet hours of the
 * accounts that set them, for inputs with a channel other than the inbox.
 */
async function preferencesOf(tx: Queryable, inputs: readonly NotificationToWrite[]) {
  const snoozes = new Map<string, Date>();
  const digests = new Map<string, 'hourly' | 'daily'>();
  const quietHours = new Map<string, AccountQuietHours>();
  const timezones = new Map<string, string>();
  const subscriptionIds = [...new Set(inputs.flatMap((i) => (i.subscriptionId ? [i.subscriptionId] : [])))];
  const accountIds = [...new Set(inputs.flatMap((i) => (i.channels.some((c) => c.type !== 'In App') ? [i.accountId] : [])))];
  if (subscriptionIds.length === 0 && accountIds.length === 0) return { snoozes, digests, quietHours, timezones };
  // The ids as one JSON parameter each: the statement's text is the same whatever their number.
  const rows = await queryRows<{
    subscription_id: string | null;
    snoozed_until_ms: number | null;
    delivery: 'instant' | 'hourly' | 'daily' | null;
    account_id: string | null;
    timezone: string | null;
    quiet_hours: AccountQuietHours | null;
  }>(
    tx,
    prepared(sql`
    select subscription_id, case when snoozed_until > now() then (extract(epoch from snoozed_until) * 1000)::float8 end as snoozed_until_ms,
      delivery, null::text as account_id, null::text as timezone, null::jsonb as quiet_hours
    from subscription_preferences
    where subscription_id in (select jsonb_array_elements_text(${JSON.stringify(subscriptionIds)}::jsonb))
      and (snoozed_until > now() or delivery <> 'instant')
    union all
    select null, null, null, account_id, timezone, quiet_hours
    from account_preferences
    where account_id in (select jsonb_array_elements_text(${JSON.stringify(accountIds)}::jsonb))`),
  );
  for (const r of rows) {
    if (r.subscription_id !== null) {
      if (r.snoozed_until_ms !== null) snoozes.set(r.subscription_id, new Date(r.snoozed_until_ms));
      if (r.delivery === 'hourly' || r.delivery === 'daily') digests.set(r.subscription_id, r.delivery);
    } else if (r.account_id !== null && r.timezone !== null) {
      timezones.set(r.account_id, r.timezone);
      if (r.quiet_hours) quietHours.set(r.account_id, { ...r.quiet_hours, timezone: r.timezone });
    }
  }
  return { snoozes, digests, quietHours, timezones };
}

import { sql } from 'drizzle-orm';
import { prepared, type Database, type Tx } from '../db/client.js';
import type { ChannelSettings } from '../db/schema/subscriptions.js';
import type { ChannelType } from '../domain/enums.js';
import type { DeliveryStatus } from './retry-policy.js';
import type { SendResult } from './senders/types.js';

// Endpoint health, Svix-style (docs/delivery.md "Endpoint health"): a Webhook or Discord channel
// whose every delivery failed for ENDPOINT_DISABLE_AFTER_MS and at least
// ENDPOINT_DISABLE_MIN_NOTIFICATIONS notifications is disabled, with a warning at half the span.
// The counters live on the channel row and are updated with the outcome write, so the decision
// never scans past deliveries.

export interface EndpointHealthSettings {
  ENDPOINT_DISABLE_AFTER_MS: number;
  ENDPOINT_DISABLE_MIN_NOTIFICATIONS: number;
}

/** What one finished delivery says about its channel's endpoint. */
export type HealthSignal = { kind: 'ok' } | { kind: 'failed'; error: string } | { kind: 'disable'; reason: string };

/** Channels whose repeated failures count toward disabling: the ones that point at someone's server. */
const SPAN_TRACKED: ReadonlySet<ChannelType> = new Set(['Webhook', 'Discord']);

/**
 * The signal of one recorded attempt, or none: a retry still pending says nothing yet, In App
 * never fails, and a delivery skipped because its channel is disabled must not count again.
 */
export function healthSignal(channelType: ChannelType, status: DeliveryStatus, result: SendResult, skipped: boolean): HealthSignal | undefined {
  if (skipped || status === 'PENDING') return undefined;
  // A deleted webhook or a blocked bot will not come back by itself: waiting out the span only
  // piles up failures, so these disable at once.
  if (result.endpointGone && status === 'FAILED') return { kind: 'disable', reason: result.endpointGone };
  if (channelType === 'Telegram' && status === 'BLOCKED_BY_USER') {
    return { kind: 'disable', reason: 'The bot was blocked or removed from the Telegram chat (HTTP 403)' };
  }
  if (channelType === 'In App') return undefined;
  // Any success proves the endpoint works again (a redelivery is sent even to a disabled channel).
  if (status === 'SENT') return { kind: 'ok' };
  if (!SPAN_TRACKED.has(channelType)) return undefined;
  return { kind: 'failed', error: result.error ?? `HTTP ${result.statusCode ?? 'error'}` };
}

export interface ChannelHealthRow {
  accountId: string;
  subscriptionId: string;
  position: number;
  type: ChannelType;
  settings: ChannelSettings | null;
  failingSince: string | null;
  failingForMs: number;
  failedNotifications: number;
  lastError: string | null;
  warnedAt: string | null;
  disableReason: string | null;
}

export type HealthVerdict = { kind: 'warn' } | { kind: 'disable'; reason: string };

/** Whether a channel, as just updated, crosses into the warning or the disabled state. */
export function healthVerdict(row: ChannelHealthRow, settings: EndpointHealthSettings): HealthVerdict | undefined {
  if (row.disableReason) return { kind: 'disable', reason: row.disableReason };
  if (row.failingSince === null || row.failedNotifications === 0) return undefined;
  const span = settings.ENDPOINT_DISABLE_AFTER_MS;
  if (row.failingForMs >= span && row.failedNotifications >= settings.ENDPOINT_DISABLE_MIN_NOTIFICATIONS) {
    return {
      kind: 'disable',
      reason: `Every delivery failed for ${formatSpan(row.failingForMs)} (${row.failedNotifications} notifications)`,
    };
  }
  if (row.warnedAt === null && row.failingForMs >= span / 2) return { kind: 'warn' };
  return undefined;
}

export function formatSpan(ms: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  for (const [size, name] of units) {
    if (ms >= size) {
      const n = Math.floor(ms / size);
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return `${Math.max(0, Math.round(ms))} ms`;
}

export interface SignalledDelivery {
  deliveryId: string;
  signal: HealthSignal;
}

/**
 * Folds a batch's signals into their channels' counters in one statement (in the outcome write's
 * transaction) and answers the channels as updated. A success in the batch resets its channel,
 * and re-enables it if it was disabled (only a redelivery reaches a disabled channel); failures
 * leave a disabled channel alone. Deliveries are matched to the channel they were
 * written for by position, type and settings, so a channel edited since is not charged.
 * The span is measured to `nowMs`, the worker's clock, not the database's now(): a test then
 * moves time instead of waiting it out.
 */
export async function updateChannelHealth(
  database: Database,
  tx: Tx,
  signalled: readonly SignalledDelivery[],
  nowMs: number,
): Promise<ChannelHealthRow[]> {
  if (signalled.length === 0) return [];
  const rows = signalled.map(({ deliveryId, signal }) => ({
    delivery_id: deliveryId,
    ok: signal.kind === 'ok',
    error: signal.kind === 'failed' ? signal.error : signal.kind === 'disable' ? signal.reason : null,
    reason: signal.kind === 'disable' ? signal.reason : null,
  }));
  // One JSON parameter: the same prepared text whatever the batch size (see writeOutcomes).
  return database.rows<ChannelHealthRow & Record<string, unknown>>(
    prepared(sql`
    with v as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(delivery_id text, ok boolean, error text, reason text)
    ),
    -- The deliveries and their notifications by their keys, each table in one index condition: as
    -- joins against the batch (guessed at 100 rows) the kept plan read both tables whole on every
    -- outcome batch (as outbox-store.ts selectClaimedWithContext, and why).
    d as materialized (
      select id, notification_id, position, channel_type, settings, created_at from deliveries
      where id = any(array(select delivery_id from v))
    ),
    n as materialized (
      select id, subscription_id, account_id from notifications
      where id = any(array(select notification_id from d))
    ),
    per_channel as (
      select n.subscription_id, n.account_id, d.position, d.channel_type, coalesce(d.settings, '{}'::jsonb) as settings,
        bool_or(v.ok) as ok,
        (count(*) filter (where not v.ok))::int as failed,
        min(d.created_at) filter (where not v.ok) as first_failed,
        max(v.error) filter (where not v.ok) as error,
        max(v.reason) as reason
      from v
      join d on d.id = v.delivery_id
      join n on n.id = d.notification_id
      where n.subscription_id is not null
      group by 1, 2, 3, 4, 5
    )
    update subscription_channels sc set
      failing_since = case when p.ok and p.reason is null then null else coalesce(sc.failing_since, p.first_failed) end,
      failed_notifications = case when p.ok and p.reason is null then 0 else sc.failed_notifications + p.failed end,
      last_error = case when p.ok and p.reason is null then null else p.error end,
      warned_at = case when p.ok and p.reason is null then null else sc.warned_at end,
      disabled_at = case when p.ok and p.reason is null then null else sc.disabled_at end,
      disabled_reason = case when p.ok and p.reason is null then null else sc.disabled_reason end
    from per_channel p
    where sc.subscription_id = p.subscription_id and sc.position = p.position and sc.type = p.channel_type
      and coalesce(sc.settings, '{}'::jsonb) = p.settings and (sc.disabled_at is null or (p.ok and p.reason is null))
      -- a success on a healthy channel changes nothing: no row write (and no row lock) on the hot path
      and not (p.ok and p.reason is null and sc.failing_since is null and sc.failed_notifications = 0
        and sc.disabled_at is null and sc.warned_at is null)
    returning p.account_id as "accountId", sc.subscription_id as "subscriptionId", sc.position, sc.type, sc.settings,
      sc.failing_since::text as "failingSince",
      coalesce((extract(epoch from ${new Date(nowMs).toISOString()}::timestamptz - sc.failing_since) * 1000)::float8, 0) as "failingForMs",
      sc.failed_notifications as "failedNotifications", sc.last_error as "lastError", sc.warned_at::text as "warnedAt",
      p.reason as "disableReason"`),
    tx,
  );
}

/**
 * Marks a channel warned or disabled, only if it still is not (two workers may judge the same
 * channel at once): answers whether this call made the change, so one notice goes out.
 */
export async function applyVerdict(database: Database, tx: Tx, row: ChannelHealthRow, verdict: HealthVerdict): Promise<boolean> {
  const changed = await database.rows<{ position: number }>(
    verdict.kind === 'disable'
      ? sql`update subscription_channels set disabled_at = now(), disabled_reason = ${verdict.reason}
          where subscription_id = ${row.subscriptionId} and position = ${row.position} and disabled_at is null returning position`
      : sql`update subscription_channels set warned_at = now()
          where subscription_id = ${row.subscriptionId} and position = ${row.position} and warned_at is null and disabled_at is null
          returning position`,
    tx,
  );
  return changed.length > 0;
}

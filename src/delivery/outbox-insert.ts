import { sql } from 'drizzle-orm';
import { notifyChanges, prepared, queryRows, type Queryable } from '../db/client.js';
import type { ChannelSettings } from '../db/schema/subscriptions.js';
import type { ChannelStatus, ChannelType, NotificationType } from '../domain/enums.js';
import { selectClaimedWithContext, toClaimedWithContext, type ClaimedRow, type ClaimedWithContext } from './outbox-store.js';

// The outbox rows of a batch of firings, each table in one statement with ONE parameter: the rows
// as a JSON array, read back by jsonb_to_recordset. Through drizzle's insert builder every value
// was a parameter of its own, and the builder's per-value typing, the statement text that changed
// with every batch size (a new prepared statement each time) and the parameter descriptions cost
// more CPU on the engine's hot path than the database's work itself. One constant statement per
// table is prepared once per connection.

export interface NotificationRow {
  id: string;
  accountId: string;
  subscriptionId: string | null;
  type: NotificationType;
  payload: Record<string, unknown>;
  dedupeKey: string;
  snoozedUntil: Date | null;
}

export interface DeliveryRow {
  id: string;
  notificationId: string;
  position: number;
  channelType: ChannelType;
  settings: ChannelSettings | null;
  status: ChannelStatus;
  lastError?: string | null;
  /** Due now when absent. */
  dueAt?: Date;
  /** Sent with the other deliveries of its batch as one message (src/delivery/batches.ts). */
  batchKey?: string;
}

/** Inserts notifications, skipping a dedupe key written before; answers the ids inserted. */
export async function insertNotifications(tx: Queryable, rows: readonly NotificationRow[]): Promise<Set<string>> {
  const inserted = await queryRows<{ id: string }>(
    tx,
    prepared(sql`
    insert into notifications (id, account_id, subscription_id, type, payload, dedupe_key, snoozed_until)
    select r.id, r.account_id, r.subscription_id, r.type, r.payload, r.dedupe_key, r.snoozed_until
    from jsonb_to_recordset(${JSON.stringify(rows.map((n) => ({ id: n.id, account_id: n.accountId, subscription_id: n.subscriptionId, type: n.type, payload: n.payload, dedupe_key: n.dedupeKey, snoozed_until: n.snoozedUntil })))}::jsonb)
      as r(id text, account_id text, subscription_id text, type text, payload jsonb, dedupe_key text, snoozed_until timestamptz)
    on conflict (dedupe_key) do nothing
    returning id`),
  );
  return new Set(inserted.map((r) => r.id));
}

/**
 * Inserts deliveries and, in the same statement, queues the notices that announce them on commit
 * (`pg_notify` on `channel`, one per payload): a round trip less on every firing write.
 */
export async function insertDeliveries(tx: Queryable, rows: readonly DeliveryRow[], notices: { channel: string; payloads: readonly string[] }): Promise<void> {
  if (rows.length === 0) {
    if (notices.payloads.length > 0) await notifyChanges(tx, notices.channel, notices.payloads);
    return;
  }
  // A data-modifying WITH runs to completion whether or not the outer query reads it.
  await tx.execute(
    prepared(sql`
    with inserted as (
      insert into deliveries (id, notification_id, position, channel_type, settings, status, last_error, due_at, batch_key)
      select r.id, r.notification_id, r.position, r.channel_type, r.settings, r.status, r.last_error, coalesce(r.due_at, now()), r.batch_key
      from jsonb_to_recordset(${JSON.stringify(rows.map((d) => ({ id: d.id, notification_id: d.notificationId, position: d.position, channel_type: d.channelType, settings: d.settings, status: d.status, last_error: d.lastError ?? null, due_at: d.dueAt ?? null, batch_key: d.batchKey ?? null })))}::jsonb)
        as r(id text, notification_id text, position int, channel_type text, settings jsonb, status text, last_error text, due_at timestamptz, batch_key text)
    )
    select count(pg_notify(${notices.channel}::text, p)) from jsonb_array_elements_text(${JSON.stringify(notices.payloads)}::jsonb) as p`),
  );
}

/**
 * `insertDeliveries` for a write that hands deliveries to this process's worker (handoff.ts): the
 * rows of `leased` are written under a lease of `leaseMs`, as a claim would leave them, and the
 * statement answers them with their send context, by the claim's own select
 * (`selectClaimedWithContext`: the payload as stored, so a first attempt's body is byte for byte a
 * retry's; the subscription as this transaction has left it), in the claim's order (by id).
 */
export async function insertDeliveriesLeased(
  tx: Queryable,
  rows: readonly DeliveryRow[],
  notices: { channel: string; payloads: readonly string[] },
  leased: ReadonlySet<string>,
  leaseMs: number,
): Promise<ClaimedWithContext[]> {
  const claimed = await queryRows<ClaimedRow>(
    tx,
    prepared(sql`
    with inserted as (
      insert into deliveries (id, notification_id, position, channel_type, settings, status, last_error, due_at, batch_key, lease_until)
      select r.id, r.notification_id, r.position, r.channel_type, r.settings, r.status, r.last_error, coalesce(r.due_at, now()), r.batch_key,
        case when r.leased then clock_timestamp() + ${leaseMs}::int * interval '1 millisecond' end
      from jsonb_to_recordset(${JSON.stringify(rows.map((d) => ({ id: d.id, notification_id: d.notificationId, position: d.position, channel_type: d.channelType, settings: d.settings, status: d.status, last_error: d.lastError ?? null, due_at: d.dueAt ?? null, batch_key: d.batchKey ?? null, leased: leased.has(d.id) })))}::jsonb)
        as r(id text, notification_id text, position int, channel_type text, settings jsonb, status text, last_error text, due_at timestamptz, batch_key text, leased boolean)
      returning id, notification_id, position, channel_type, settings, attempts, lease_until, batch_key
    ),
    notified as (
      select count(pg_notify(${notices.channel}::text, p)) as n from jsonb_array_elements_text(${JSON.stringify(notices.payloads)}::jsonb) as p
    )
    ${selectClaimedWithContext('inserted')}
    cross join notified
    where c.lease_until is not null
    order by c.id`),
  );
  return claimed.map(toClaimedWithContext);
}

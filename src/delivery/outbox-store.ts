import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import type { ChannelSettings } from '../db/schema/subscriptions.js';
import type { ChannelType } from '../domain/enums.js';
import { setChannelStatus } from './channel-status.js';
import type { DeliveryStatus } from './retry-policy.js';
import type { SendResult } from './senders/types.js';

// The outbox queries of the delivery worker: claim due deliveries under a lease, load what a send
// needs, record one attempt's outcome. Raw SQL because SKIP LOCKED and lease arithmetic read best so.

export interface ClaimedDelivery {
  id: string;
  notificationId: string;
  position: number;
  channelType: ChannelType;
  settings: ChannelSettings | null;
  attempts: number;
  /** The lease as stored (text keeps the microseconds): the proof this worker still owns the row. */
  lease: string;
}

export async function claimDueDeliveries(database: Database, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  return database.rows<ClaimedDelivery & Record<string, unknown>>(sql`
    update deliveries set lease_until = now() + ${leaseMs}::int * interval '1 millisecond', updated_at = now()
    where id in (
      select id from deliveries
      where status = 'PENDING' and due_at <= now() and (lease_until is null or lease_until < now())
      order by due_at
      limit ${limit}::int
      for update skip locked
    )
    returning id, notification_id as "notificationId", position, channel_type as "channelType", settings, attempts,
      lease_until::text as lease`);
}

export interface SendContext {
  accountId: string;
  subscriptionId: string | null;
  payload: Record<string, unknown>;
  webhookSecret: string;
  /** Earlier answers of this delivery that were HTTP 429. */
  rateLimitedBefore: number;
}

export async function loadSendContext(database: Database, delivery: ClaimedDelivery): Promise<SendContext | undefined> {
  const [row] = await database.rows<SendContext & Record<string, unknown>>(sql`
    select n.account_id as "accountId", n.subscription_id as "subscriptionId", n.payload,
      a.webhook_secret as "webhookSecret",
      -- only this round's tries: a redelivery resets attempts to 0 and starts a new round
      (select count(*)::int from (
        select status_code from delivery_attempts where delivery_id = ${delivery.id} order by id desc limit ${delivery.attempts}::int
      ) recent where recent.status_code = 429) as "rateLimitedBefore"
    from notifications n join accounts a on a.id = n.account_id
    where n.id = ${delivery.notificationId}`);
  return row;
}

export interface AttemptOutcome {
  result: SendResult;
  status: DeliveryStatus;
  retryDelayMs?: number;
}

/**
 * Records the attempt and the delivery's next state, and mirrors it onto the subscription's channel
 * when this is that subscription's latest notification. False when the lease was lost meanwhile.
 */
export async function recordAttempt(
  database: Database,
  delivery: ClaimedDelivery,
  context: SendContext,
  { result, status, retryDelayMs = 0 }: AttemptOutcome,
): Promise<boolean> {
  return database.db.transaction(async (tx) => {
    const updated = await database.rows(
      sql`
      update deliveries set status = ${status}, attempts = attempts + 1, lease_until = null,
        due_at = ${status === 'PENDING' ? sql`now() + ${retryDelayMs}::int * interval '1 millisecond'` : sql`due_at`},
        last_error = ${result.error ?? null}, updated_at = now()
      where id = ${delivery.id} and status = 'PENDING' and lease_until = ${delivery.lease}::timestamptz
      returning id`,
      tx,
    );
    if (updated.length === 0) return false;
    await tx.execute(sql`
      insert into delivery_attempts (delivery_id, status_code, error, duration_ms)
      values (${delivery.id}, ${result.statusCode ?? null}, ${result.error ?? null}, ${Math.round(result.durationMs)})`);
    await setChannelStatus(tx, { id: delivery.notificationId, ...context }, [delivery.position], status);
    return true;
  });
}

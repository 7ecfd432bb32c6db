import { sql } from 'drizzle-orm';
import { prepared, type Database, type Queryable, type Tx } from '../db/client.js';
import { BATCH_LOCK_CLASS } from '../db/coordination.js';
import type { ChannelSettings } from '../db/schema/subscriptions.js';
import type { ChannelType } from '../domain/enums.js';
import {
  applyVerdict,
  healthSignal,
  healthVerdict,
  updateChannelHealth,
  type ChannelHealthRow,
  type EndpointHealthSettings,
  type HealthVerdict,
  type SignalledDelivery,
} from './endpoint-health.js';
import { writeHealthNotices } from './health-notice.js';
import type { DeliveryStatus } from './retry-policy.js';
import type { RuleState } from './message/facts.js';
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
  /** Sent in one summary with the other deliveries of this key (batches.ts); null: on its own. */
  batchKey?: string | null;
  /** The lease as stored (text keeps the microseconds): the proof this worker still owns the row. */
  lease: string;
}

/**
 * The worker's own writes (claims, outcomes) commit without waiting for the WAL flush: losing the
 * last few in a database crash only sends those deliveries again, with the same id, which
 * at-least-once delivery allows. The flush wait (several ms per commit on this disk) was the
 * largest part of a delivery's latency. Notifications themselves are still written durably.
 *
 * Set from inside the statement (`set_config(…, true)` lasts until the end of the transaction,
 * which for a lone statement is its own): a claim is then one round trip instead of four (begin,
 * `set local`, the claim, commit), and an outcome batch saves two.
 */
const NO_FLUSH_WAIT = sql`(select set_config('synchronous_commit', 'off', true))`;

/** A claimed delivery with what its send needs. */
export type ClaimedWithContext = ClaimedDelivery & { context: SendContext };

/**
 * Claims up to `limit` due deliveries under a lease and loads what their sends need in the same
 * round trip (one query per claim batch instead of one context load per delivery). A batched
 * delivery brings the rest of its batch (all of it, whatever the limit): the batch is taken whole
 * by one worker, whose transaction-scoped advisory lock on the key keeps other workers from taking
 * a part of it at the same moment.
 */
export async function claimDueDeliveries(
  database: Database,
  limit: number,
  leaseMs: number,
  /** Claim what is due by this instant instead of the database's now (tests of held deliveries). */
  dueBy?: Date,
): Promise<ClaimedWithContext[]> {
  const due = dueBy ? sql`${dueBy.toISOString()}::timestamptz` : sql`now()`;
  // One statement, so its own transaction: the advisory locks on batch keys last until it commits.
  // A named statement (its text is one per `due` form): planned anew on every claim it was the
  // largest planning cost on PostgreSQL, ~1 ms a call (docs/PERFORMANCE.md "Delivery").
  const rows = await database.rows<ClaimedRow>(
    prepared(sql`
    with no_flush_wait as materialized ${NO_FLUSH_WAIT},
    -- The first due, in due order, locked: a function of its own, so that its plan is the ordered
    -- index scan whatever the table's statistics say (drizzle/0021_claim_in_due_order.sql). Nothing
    -- else here filters on status where an index could take it: statistics from a short queue make
    -- such a filter look free, and the plan then reads every pending row.
    picked as (select id, batch_key from pick_due_deliveries(${limit}::int, ${due})),
    -- The batches this claim takes: a key is locked only once picked (a lock in picked's filter would
    -- be tried on every row the scan reads, before the limit), in a class of its own (coordination.ts).
    -- Another worker's claim of the same batch finds the lock taken and leaves the batch to this one.
    batch_keys as materialized (
      select k.batch_key from (select distinct batch_key from picked where batch_key is not null) k
      where pg_try_advisory_xact_lock(${BATCH_LOCK_CLASS}::int, hashtext(k.batch_key))
    ),
    -- The rest of the picked batches, key by key through the partial index on batch_key, each row
    -- locked (waiting for a writer of it, then read as it is now) and checked after its lock: the
    -- checks stay out of the scan behind offset 0.
    batch_rest as (
      select r.id from batch_keys k
      cross join lateral (
        select d.id, d.status, d.lease_until from deliveries d
        where d.batch_key = k.batch_key
        offset 0
        for update of d
      ) r
      where r.status = 'PENDING' and (r.lease_until is null or r.lease_until < now())
        and r.id not in (select id from picked)
    ),
    -- Every row here is locked by this statement and was checked as it is now, so the update finds
    -- them by id and checks nothing again. The pick runs on a snapshot of its own, taken after this
    -- statement's: a delivery committed in between can be picked but is not seen here, so it is
    -- left unleased (its write's notice claims it next), never leased without being answered.
    claimed as (
      -- The ids in one index condition on the primary key: 'id in (select ...)' was planned as a hash
      -- join over a scan of the whole table, kept by the named statement as deliveries grew (see
      -- selectClaimedWithContext).
      update deliveries set lease_until = now() + ${leaseMs}::int * interval '1 millisecond', updated_at = now()
      where id = any(array(
          select id from picked where batch_key is null or batch_key in (select batch_key from batch_keys)
          union all select id from batch_rest
        ))
      returning id, notification_id, position, channel_type, settings, attempts, lease_until, batch_key
    )
    ${selectClaimedWithContext('claimed')}
    cross join no_flush_wait
    order by c.id`),
  );
  return rows.map(toClaimedWithContext);
}

/**
 * A claimed delivery and its send context, for the deliveries of the CTE `cte` (its rows: id,
 * notification_id, position, channel_type, settings, attempts, lease_until, batch_key) as `c`: the
 * claim reads it, and so does a firing write that leases its deliveries to this process's worker
 * (outbox-insert.ts `insertDeliveriesLeased`), so a handed-off send and a claimed one see the same.
 * Callers add their own joins, filter and `order by c.id`.
 */
export function selectClaimedWithContext(cte: 'claimed' | 'inserted') {
  return sql`
    select c.id, c.notification_id as "notificationId", c.position, c.channel_type as "channelType", c.settings, c.attempts,
      c.batch_key as "batchKey", c.lease_until::text as lease,
      n.payload,
      a.webhook_secret as "webhookSecret",
      a.previous_webhook_secret as "previousWebhookSecret",
      (extract(epoch from a.webhook_secret_rotated_at) * 1000)::float8 as "rotatedAtMs",
      -- only this round's tries: a redelivery resets attempts to 0 and starts a new round
      case when c.attempts = 0 then 0 else (select count(*)::int from (
        select status_code from delivery_attempts where delivery_id = c.id order by id desc limit c.attempts
      ) recent where recent.status_code = 429) end as "rateLimitedBefore",
      sc.disabled_reason as "disabledReason", n.subscription_id as "subscriptionId",
      -- the rule as it is now, for the chat buttons that still apply to it
      s.enabled as "ruleEnabled", s.trigger_type as "ruleTriggerType",
      (select m.outcomes->>0 from catalog_markets m where m.id = n.payload->>'marketId') as "outcomeName"
    from ${sql.raw(cte)} c
    -- The notifications by their keys, all in one index condition (offset 0: never turned back into a
    -- join). This is a named statement whose one generic plan is made while the tables are small: as a
    -- plain join against a batch the planner guesses at 100 rows, that plan was a hash join reading
    -- all of notifications, on every firing write and claim, as the inbox grew (docs/PERFORMANCE.md
    -- "Plans that outlive the table sizes they were made for"). At worst (a plan made while the table
    -- was small, kept until the next ANALYZE) this reads the table once a statement, never once a row.
    join (
      select n.id, n.payload, n.account_id, n.subscription_id from notifications n
      where n.id = any(array(select notification_id from ${sql.raw(cte)}))
      offset 0
    ) n on n.id = c.notification_id
    -- The rest (tables that grow with accounts and rules, not with history) one probe a delivery.
    cross join lateral (
      select a.webhook_secret, a.previous_webhook_secret, a.webhook_secret_rotated_at from accounts a where a.id = n.account_id offset 0
    ) a
    left join lateral (select s.enabled, s.trigger_type from subscriptions s where s.id = n.subscription_id offset 0) s on true
    -- the channel this delivery was written for, when it is disabled (endpoint health)
    left join lateral (
      select sc.disabled_reason from subscription_channels sc
      where sc.subscription_id = n.subscription_id and sc.position = c.position
        and sc.type = c.channel_type and coalesce(sc.settings, '{}'::jsonb) = coalesce(c.settings, '{}'::jsonb)
        and sc.disabled_at is not null
      offset 0
    ) sc
      -- a redelivery (attempts reset to 0 over earlier attempts) is the user asking to try it now.
      -- Counted through the index, and only for a disabled channel: as 'exists' it was planned as a
      -- hashed scan of every attempt, and with 'limit 1' as a scan until the first match.
      on not (c.attempts = 0 and (select count(*) from delivery_attempts da where da.delivery_id = c.id) > 0)`;
}

/** A row of `selectClaimedWithContext`. */
export type ClaimedRow = ClaimedDelivery & SendContext & ClaimedRuleColumns & Record<string, unknown>;

export function toClaimedWithContext(r: ClaimedRow): ClaimedWithContext {
  return {
    id: r.id,
    notificationId: r.notificationId,
    position: r.position,
    channelType: r.channelType,
    settings: r.settings,
    attempts: r.attempts,
    batchKey: r.batchKey,
    lease: r.lease,
    context: {
      payload: r.payload,
      webhookSecret: r.webhookSecret,
      previousWebhookSecret: r.previousWebhookSecret,
      rotatedAtMs: r.rotatedAtMs,
      rateLimitedBefore: r.rateLimitedBefore,
      disabledReason: r.disabledReason,
      subscriptionId: r.subscriptionId,
      rule: r.ruleEnabled === null || r.ruleTriggerType === null ? null : { enabled: r.ruleEnabled, triggerType: r.ruleTriggerType },
      outcomeName: r.outcomeName,
    },
  };
}

interface ClaimedRuleColumns {
  ruleEnabled: boolean | null;
  ruleTriggerType: string | null;
  outcomeName: string | null;
}

export interface SendContext {
  payload: Record<string, unknown>;
  webhookSecret: string;
  /** The secret before the last rotation, and when that was (ms since the epoch). */
  previousWebhookSecret: string | null;
  rotatedAtMs: number | null;
  /** Earlier answers of this delivery that were HTTP 429. */
  rateLimitedBefore: number;
  /** Set when the delivery's channel is disabled (endpoint health): it is recorded FAILED unsent. */
  disabledReason?: string | null;
  subscriptionId?: string | null;
  /** The notification's rule as it is now: null when deleted (or a demo notification without one). */
  rule?: RuleState | null;
  /** The market's first outcome ("Yes"): the one price rules watch. */
  outcomeName?: string | null;
}

export interface AttemptOutcome {
  result: SendResult;
  status: DeliveryStatus;
  retryDelayMs?: number;
  /** Not sent because the channel is disabled: says nothing new about the endpoint's health. */
  skipped?: boolean;
}

export interface AttemptRecord {
  delivery: ClaimedDelivery;
  outcome: AttemptOutcome;
}

/** How an outcome write keeps endpoint health (docs/delivery.md "Endpoint health"). */
export interface HealthTracking {
  settings: EndpointHealthSettings;
  /** The worker's clock: how long a channel has been failing is measured to it. */
  now: () => number;
  /** Told of each channel this write warned about or disabled (for the log), after its notice is written. */
  onChange?(row: ChannelHealthRow, verdict: HealthVerdict): void;
}

/**
 * Records a batch of attempts: the deliveries' next states and attempt rows in one statement
 * (`writeOutcomes`) and, in the same transaction, their channels' endpoint health. Answers the ids
 * of the deliveries whose lease was still held (the others were not touched).
 */
export async function recordAttempts(database: Database, records: AttemptRecord[], health?: HealthTracking): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  const signalled = health ? healthSignals(records) : [];
  // Without endpoint health to update (no signal: retries pending, In App), the one statement is
  // its own transaction.
  if (signalled.length === 0) return writeOutcomes(database, database.db, records);
  return database.db.transaction(async (tx) => {
    const kept = await writeOutcomes(database, tx, records);
    const judged = await trackEndpointHealth(
      database,
      tx,
      signalled.filter((s) => kept.has(s.deliveryId)),
      health!.settings,
      health!.now(),
    );
    for (const { row, verdict } of judged) health!.onChange?.(row, verdict);
    return kept;
  });
}

/**
 * The deliveries' next states (only where this worker still holds the lease) and their attempt
 * rows, in one statement; answers the ids whose lease was still held (the others are untouched).
 */
async function writeOutcomes(database: Database, on: Queryable, records: AttemptRecord[]): Promise<Set<string>> {
  const rows = records.map(({ delivery, outcome: { result, status, retryDelayMs = 0 } }) => ({
    id: delivery.id,
    status,
    delay: retryDelayMs,
    error: result.error ?? null,
    lease: delivery.lease,
    status_code: result.statusCode ?? null,
    duration_ms: Math.round(result.durationMs),
  }));
  // The rows as one JSON parameter: the text is the same whatever the batch size, so it is prepared
  // and planned once per connection, not once per size (a VALUES list of 7 parameters a row was
  // parsed and planned again for each new size, and typed value by value in drizzle).
  const updated = await database.rows<{ id: string }>(
    prepared(sql`
    with no_flush_wait as materialized ${NO_FLUSH_WAIT},
    v as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as r(id text, status text, delay int, error text, lease timestamptz, status_code int, duration_ms int)
    ),
    updated as (
      update deliveries d set status = v.status, attempts = d.attempts + 1, lease_until = null,
        due_at = case when v.status = 'PENDING' then now() + v.delay * interval '1 millisecond' else d.due_at end,
        last_error = v.error, updated_at = now()
      from v cross join no_flush_wait
      -- the ids again as one array: an index condition on the primary key, not a join over a scan of
      -- the table (see the claim)
      where d.id = any(array(select id from v)) and d.id = v.id and d.status = 'PENDING' and d.lease_until = v.lease
      returning d.id, v.status_code, v.error, v.duration_ms
    ),
    attempts as (
      insert into delivery_attempts (delivery_id, status_code, error, duration_ms)
      select id, status_code, error, duration_ms from updated
    )
    select id from updated`),
    on,
  );
  return new Set(updated.map((r) => r.id));
}

/** What each finished delivery of a batch says about its channel's endpoint (none for most retries). */
function healthSignals(records: readonly AttemptRecord[]): SignalledDelivery[] {
  return records.flatMap(({ delivery, outcome }) => {
    const signal = healthSignal(delivery.channelType, outcome.status, outcome.result, outcome.skipped === true);
    return signal ? [{ deliveryId: delivery.id, signal }] : [];
  });
}

/**
 * Endpoint health, in the outcome write's transaction: the finished deliveries update their
 * channels' counters, and a channel that crosses into warning or disabled gets its notice.
 */
async function trackEndpointHealth(database: Database, tx: Tx, signalled: SignalledDelivery[], health: EndpointHealthSettings, nowMs: number) {
  const channels = await updateChannelHealth(database, tx, signalled, nowMs);
  const judged: Array<{ row: ChannelHealthRow; verdict: HealthVerdict }> = [];
  for (const row of channels) {
    const verdict = healthVerdict(row, health);
    if (verdict && (await applyVerdict(database, tx, row, verdict))) judged.push({ row, verdict });
  }
  await writeHealthNotices(database, tx, judged, health);
  return judged;
}

/**
 * Gives claimed deliveries back to the queue unsent (a stopping worker's): the lease is cleared
 * where this worker still holds it, `attempts` stays, so the next claim sends them as the same try.
 * Answers how many were released.
 */
export async function releaseClaims(database: Database, deliveries: readonly ClaimedDelivery[]): Promise<number> {
  if (deliveries.length === 0) return 0;
  const values = deliveries.map((d) => sql`(${d.id}::text, ${d.lease}::timestamptz)`);
  const released = await database.rows<{ id: string }>(sql`
    update deliveries d set lease_until = null, updated_at = now()
    from (values ${sql.join(values, sql`, `)}) as v(id, lease)
    where d.id = v.id and d.status = 'PENDING' and d.lease_until = v.lease
    returning d.id`);
  return released.length;
}

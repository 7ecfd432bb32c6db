import { sql } from 'drizzle-orm';
import { isUniqueViolation, prepared, queryRows, type Queryable, type Tx } from '../db/client.js';
import {
  catalogEvents,
  catalogMarkets,
  subscriptionChannels,
  subscriptions,
  watchlists,
} from '../db/schema/index.js';
import type { Firing } from '../engine/rules.js';
import { statusOf, transition, type SubscriptionStatus } from '../domain/subscription-status.js';
import { NOTIFICATION_TYPE } from '../domain/enums.js';
import { pricePayload, type ChannelRow } from '../delivery/payloads.js';
import { writeNotificationsOnce, type BatchingOptions, type NotificationToWrite } from '../delivery/enqueue.js';
import type { HandoffWrite } from '../delivery/handoff.js';

export interface FiringContext {
  /** When the venue data behind the price was received (ms). */
  receivedAtMs: number;
  /** The raw venue message, passed through as `polymarketSourceEvent`. */
  sourceEvent?: unknown;
  /** The venue's own timestamp of the price change (ms), when known. */
  sourceTimestampMs?: number;
}

export type FireOutcome = 'written' | 'duplicate' | 'skipped';

/**
 * One notification per subscription, market and price move. The move is named by the venue's own
 * timestamp when a venue message caused it, so two engine processes that both own a token for a
 * moment (scale-out membership changing) and both see the message write it once; a firing with no
 * venue message (a rule added, a pause ending) is named by its detection time.
 */
export const priceDedupeKey = (f: Pick<Firing, 'subscriptionId' | 'marketId' | 'atMs'>, ctx: Pick<FiringContext, 'sourceTimestampMs'>) =>
  `${f.subscriptionId}:${f.marketId}:${ctx.sourceTimestampMs ?? f.atMs}`;

type SubscriptionRow = typeof subscriptions.$inferSelect;

/** The catalog fields a price payload names (not the whole rows: descriptions, outcomes, images). */
interface FiringPlaceRow {
  market: { id: string; question: string };
  event: { id: string; title: string; slug: string };
}

/** A json column: postgres.js parses it itself; PGlite's drizzle driver may hand it over as text. */
type JsonOf<T> = T | string | null;
const parsed = <T>(value: JsonOf<T> | undefined): T | null => (typeof value === 'string' ? (JSON.parse(value) as T) : (value ?? null));

/**
 * Writes one firing atomically (its own transaction, or a savepoint in the caller's): the
 * subscription's new status and counters, the (subscription, market) last firing, the
 * price_notification and its deliveries. The runner's fallback when a batch cannot be written whole.
 */
export async function writeFiring(on: Queryable, firing: Firing, ctx: FiringContext, batching?: BatchingOptions): Promise<FireOutcome> {
  try {
    const [outcome] = await on.transaction((tx) => writeFirings(tx, [{ firing, ctx }], batching));
    return outcome!;
  } catch (error) {
    // Written before (a replay), or by a racing writer of the same key.
    if (error instanceof ReplayInBatch || isUniqueViolation(error)) return 'duplicate';
    throw error;
  }
}

export interface PendingFiring {
  firing: Firing;
  ctx: FiringContext;
}

/** A firing of the batch was written before: the batch is redone one firing at a time. */
export class ReplayInBatch extends Error {
  constructor() {
    super('a firing of the batch was already written');
  }
}

/**
 * Writes a batch of firings, with the outcome of writing each in turn, in a fixed number of
 * statements (at 1,000 firings/s a dozen round trips per firing would be the limit): the
 * subscriptions are locked, the state changes applied in memory in batch order, then written.
 * Throws `ReplayInBatch` when a dedupe key was already written (a replay after a crash, rare), so
 * the caller rolls this back and uses `writeFiring` on each, whose own commits settle such cases.
 * `alsoSave` (the caller's other writes of the transaction) runs before the outbox write, so the
 * lease of a delivery handed off starts with the last statement before COMMIT, not earlier.
 */
export async function writeFirings(
  tx: Tx,
  batch: readonly PendingFiring[],
  batching?: BatchingOptions,
  handoff?: HandoffWrite,
  alsoSave?: () => Promise<void>,
): Promise<FireOutcome[]> {
  const { outcomes, outbox } = await applyFirings(tx, batch);
  await alsoSave?.();
  if (outbox.length === 0) return outcomes;
  const ids = await writeNotificationsOnce(tx, outbox, batching, handoff);
  if (ids.includes(null)) throw new ReplayInBatch();
  return outcomes;
}

/** A row of `lockSubscriptions` as the driver answers it: PGlite's drizzle driver leaves timestamps as text. */
interface LockedRow extends Record<string, unknown> {
  id: string;
  account_id: string;
  watchlist_id: string;
  scope: SubscriptionRow['scope'];
  event_id: string | null;
  market_id: string | null;
  type: SubscriptionRow['type'];
  threshold_percent: number | null;
  rule_params: JsonOf<NonNullable<SubscriptionRow['ruleParams']>>;
  trigger_type: SubscriptionRow['triggerType'];
  trigger_interval: SubscriptionRow['triggerInterval'];
  expires_at: Date | string | null;
  enabled: boolean;
  status_reason: SubscriptionRow['statusReason'];
  trigger_count: number;
  last_triggered_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string | null;
  watchlist_name: string | null;
}

/**
 * The batch's subscriptions locked, in id order, with their watchlists' names. One named statement
 * whatever the batch's size (the ids as one JSON parameter), probing the primary key: through
 * drizzle's builder it was a new text per size, parsed and planned on every write (on PGlite a
 * fifth of an idle firing's write).
 */
function lockSubscriptions(tx: Tx, ids: readonly string[]) {
  return queryRows<LockedRow>(
    tx,
    prepared(sql`
    select s.id, s.account_id, s.watchlist_id, s.scope, s.event_id, s.market_id, s.type, s.threshold_percent, s.rule_params,
      s.trigger_type, s.trigger_interval, s.expires_at, s.enabled, s.status_reason, s.trigger_count, s.last_triggered_at,
      s.created_at, s.updated_at, w.name as watchlist_name
    from ${subscriptions} s
    left join ${watchlists} w on w.id = s.watchlist_id
    where s.id = any(array(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)))
    order by s.id
    for update of s`),
  );
}

const dateOf = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));
const optionalDateOf = (value: Date | string | null): Date | null => (value === null ? null : dateOf(value));

/** Every column of the row, as drizzle's select of `subscriptions` answers it (the type checks none is missed). */
function lockedRowOf(r: LockedRow): { sub: SubscriptionRow; watchlistName: string | null } {
  const sub: SubscriptionRow = {
    id: r.id,
    accountId: r.account_id,
    watchlistId: r.watchlist_id,
    scope: r.scope,
    eventId: r.event_id,
    marketId: r.market_id,
    type: r.type,
    thresholdPercent: r.threshold_percent,
    ruleParams: parsed(r.rule_params),
    triggerType: r.trigger_type,
    triggerInterval: r.trigger_interval,
    expiresAt: optionalDateOf(r.expires_at),
    enabled: r.enabled,
    statusReason: r.status_reason,
    triggerCount: r.trigger_count,
    lastTriggeredAt: optionalDateOf(r.last_triggered_at),
    createdAt: dateOf(r.created_at),
    updatedAt: optionalDateOf(r.updated_at),
  };
  return { sub, watchlistName: r.watchlist_name };
}

/** The subscriptions' state changes of a batch, written; answers the notifications to write. */
async function applyFirings(tx: Tx, batch: readonly PendingFiring[]): Promise<{ outcomes: FireOutcome[]; outbox: NotificationToWrite[] }> {
  const subscriptionIds = [...new Set(batch.map((b) => b.firing.subscriptionId))].sort();
  const marketIds = [...new Set(batch.map((b) => b.firing.marketId))];
  // The watchlist names come with the locked rows (one round trip less; only subscriptions are
  // locked): on PGlite each statement of the write is time on the service's one thread, between the
  // tick and the webhook.
  const locked = (await lockSubscriptions(tx, subscriptionIds)).map(lockedRowOf);
  const subs = new Map(locked.map(({ sub }) => [sub.id, sub]));
  if (subs.size === 0) return { outcomes: batch.map(() => 'skipped'), outbox: [] };
  // The places and the channels in one statement, after the lock: a change of the rule committed
  // while the lock waited (PATCH replaces the channels with the row) is in this statement's
  // snapshot. Read inside the locking statement, PostgreSQL re-reads the locked row as committed
  // but answers a subquery from the snapshot taken before the wait: the old channels.
  const [read] = await queryRows<{ places: JsonOf<FiringPlaceRow[]>; channels: JsonOf<Record<string, ChannelRow[]>> }>(
    tx,
    prepared(sql`
    select
      (select json_agg(json_build_object('market', json_build_object('id', m.id, 'question', m.question),
          'event', json_build_object('id', e.id, 'title', e.title, 'slug', e.slug)))
        from ${catalogMarkets} m join ${catalogEvents} e on e.id = m.event_id
        where m.id in (select jsonb_array_elements_text(${JSON.stringify(marketIds)}::jsonb))) as places,
      (select json_object_agg(c.subscription_id, c.list) from (
          select subscription_id, json_agg(json_build_object('position', position, 'type', type, 'settings', settings) order by position) as list
          from ${subscriptionChannels}
          where subscription_id in (select jsonb_array_elements_text(${JSON.stringify([...subs.keys()])}::jsonb))
          group by subscription_id
        ) c) as channels`),
  );
  const placeByMarket = new Map((parsed(read?.places) ?? []).map((p) => [p.market.id, p]));
  const watchlistNames = new Map(locked.flatMap(({ sub, watchlistName }) => (watchlistName === null ? [] : [[sub.watchlistId, watchlistName] as const])));
  const channelsBySub = new Map(Object.entries(parsed(read?.channels) ?? {}));

  // The state changes of writeFiring, applied in memory in batch order.
  const status = new Map<string, SubscriptionStatus>([...subs.values()].map((s) => [s.id, statusOf(s)]));
  const outcomes: FireOutcome[] = [];
  const written: { sub: SubscriptionRow; firing: Firing; channels: ChannelRow[]; payload: Record<string, unknown>; dedupeKey: string }[] = [];
  for (const { firing, ctx } of batch) {
    const sub = subs.get(firing.subscriptionId);
    const place = placeByMarket.get(firing.marketId);
    const watchlistName = sub ? watchlistNames.get(sub.watchlistId) : undefined;
    const next = sub && transition(status.get(sub.id)!, { kind: 'price fired', triggerType: sub.triggerType });
    if (!sub || next?.kind !== 'change' || !place || watchlistName === undefined) {
      outcomes.push('skipped');
      continue;
    }
    const channels = channelsBySub.get(sub.id) ?? [];
    written.push({
      sub,
      firing,
      channels,
      payload: pricePayload(sub, { ...place, watchlistName }, channels, firing, ctx),
      dedupeKey: priceDedupeKey(firing, ctx),
    });
    outcomes.push('written');
    status.set(sub.id, next.status);
  }
  if (written.length === 0) return { outcomes, outbox: [] };

  const perSub = new Map<string, { status: SubscriptionStatus; count: number; lastAt: Date }>();
  const perMarket = new Map<string, { subscriptionId: string; marketId: string; lastFiredAt: Date }>();
  for (const { sub, firing } of written) {
    const at = new Date(firing.atMs);
    const prev = perSub.get(sub.id);
    perSub.set(sub.id, { status: status.get(sub.id)!, count: (prev?.count ?? 0) + 1, lastAt: at });
    perMarket.set(`${sub.id}:${firing.marketId}`, { subscriptionId: sub.id, marketId: firing.marketId, lastFiredAt: at });
  }
  const subRows = [...perSub].map(([id, u]) => ({ id, enabled: u.status.enabled, reason: u.status.reason, n: u.count, at: u.lastAt.toISOString() }));
  const marketRows = [...perMarket.values()].map((m) => ({ subscription_id: m.subscriptionId, market_id: m.marketId, at: m.lastFiredAt.toISOString() }));
  // Both in one statement: the subscriptions' new state and counters, and each (subscription,
  // market)'s last firing. Before the outbox write, so deliveries handed off read the rule as it will
  // be committed (a replay throws at the outbox write and rolls all of it back). The rows as JSON
  // parameters, so the text is one whatever the batch and is prepared once (`prepared`).
  await tx.execute(
    prepared(sql`
    with updated as (
      update subscriptions as s set enabled = v.enabled, status_reason = v.reason,
        trigger_count = s.trigger_count + v.n, last_triggered_at = v.at
      from jsonb_to_recordset(${JSON.stringify(subRows)}::jsonb) as v(id text, enabled boolean, reason text, n int, at timestamptz)
      where s.id = v.id
    )
    insert into subscription_market_state (subscription_id, market_id, last_fired_at)
    select m.subscription_id, m.market_id, m.at
    from jsonb_to_recordset(${JSON.stringify(marketRows)}::jsonb) as m(subscription_id text, market_id text, at timestamptz)
    on conflict (subscription_id, market_id) do update set last_fired_at = excluded.last_fired_at`),
  );
  return {
    outcomes,
    outbox: written.map((w) => ({
      accountId: w.sub.accountId,
      subscriptionId: w.sub.id,
      type: NOTIFICATION_TYPE.price,
      payload: w.payload,
      dedupeKey: w.dedupeKey,
      channels: w.channels.map((c) => ({ type: c.type, settings: c.settings })),
    })),
  };
}

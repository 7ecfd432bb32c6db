import { sql, type SQL } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client.js';
import {
  DEFAULT_TRIGGER_INTERVAL,
  MOVE_RULE_TYPES,
  MOVE_WINDOWS,
  TRIGGER_INTERVAL_MS,
  type MoveWindow,
  type TriggerInterval,
  type TriggerType,
  PRICE_RULE_TYPES,
} from '../domain/enums.js';
import { thresholdFraction, type CompiledRule, type EngineRuleType, type RearmSide } from '../engine/rules.js';

/** The types the rule index evaluates on every displayed price: the spec's six and the window moves. */
const INDEX_RULE_TYPES: readonly EngineRuleType[] = [...PRICE_RULE_TYPES, ...MOVE_RULE_TYPES];

/** One enabled price (or window-move) subscription on one open market, as the SQL expansion answers it. */
export interface RulePair {
  subscriptionId: string;
  marketId: string;
  token: string;
  type: EngineRuleType;
  thresholdPercent: number;
  /** `Moves … By` only (`rule_params.window`). */
  window: MoveWindow | null;
  triggerType: TriggerType;
  triggerInterval: TriggerInterval | null;
  expiresAtMs: number | null;
  /** Last user change (restart, update); a firing before it no longer pauses the rule. */
  updatedAtMs: number | null;
  lastFiredAtMs: number | null;
  /** The subscription's re-arm band in percentage points (`subscription_preferences`, 0 when none). */
  rearmPoints: number;
  /** A saved band not passed yet (cleared, as the pause, by a user change after that firing). */
  rearmAfter: RearmSide | null;
}

type Row = {
  subscription_id: string;
  market_id: string;
  token: string;
  type: EngineRuleType;
  threshold_percent: number;
  move_window: string | null;
  trigger_type: TriggerType;
  trigger_interval: TriggerInterval | null;
  expires_at_ms: number | string | null;
  updated_at_ms: number | string | null;
  last_fired_at_ms: number | string | null;
  rearm_points: number | string;
  rearm_after: RearmSide | null;
};

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

/**
 * Expands enabled price subscriptions to (subscription, market, Yes token) pairs by scope:
 * Market → its market; Event → every open market of the event; Watchlist → every open market in
 * the watchlist's `watchlist_markets`. `subscriptionIds` restricts to those subscriptions.
 */
export async function expandPriceRules(
  database: Database,
  subscriptionIds?: readonly string[],
  on?: Queryable,
): Promise<RulePair[]> {
  if (subscriptionIds && subscriptionIds.length === 0) return [];
  const only: SQL = subscriptionIds
    ? sql`and s.id in (${sql.join(subscriptionIds.map((id) => sql`${id}`), sql`, `)})`
    : sql``;
  const rows = await database.rows<Row>(
    sql`
      with s as (
        select id, scope, event_id, market_id, watchlist_id, type, threshold_percent, trigger_type,
               trigger_interval, expires_at, updated_at, rule_params
        from subscriptions s
        where s.enabled and s.type in (${sql.join(INDEX_RULE_TYPES.map((t) => sql`${t}`), sql`, `)}) and s.threshold_percent is not null ${only}
      ), pairs as (
        select s.id as sid, m.id as mid from s join catalog_markets m on m.id = s.market_id
          where s.scope = 'Market'
        union
        select s.id, m.id from s join catalog_markets m on m.event_id = s.event_id
          where s.scope = 'Event'
        union
        select s.id, wm.market_id from s join watchlist_markets wm on wm.watchlist_id = s.watchlist_id
          where s.scope = 'Watchlist'
      )
      select s.id as subscription_id, m.id as market_id, m.yes_token_id as token, s.type,
             s.threshold_percent, s.rule_params->>'window' as move_window, s.trigger_type, s.trigger_interval,
             (extract(epoch from s.expires_at) * 1000)::float8 as expires_at_ms,
             (extract(epoch from s.updated_at) * 1000)::float8 as updated_at_ms,
             -- A user change (restart, update) after the last firing clears its Recurring pause.
             case when s.updated_at is null or st.last_fired_at > s.updated_at
                  then (extract(epoch from st.last_fired_at) * 1000)::float8 end as last_fired_at_ms,
             coalesce(sp.rearm_points, 0) as rearm_points,
             case when s.updated_at is null or st.last_fired_at > s.updated_at then st.rearm_after end as rearm_after
      from pairs p
      join s on s.id = p.sid
      join catalog_markets m on m.id = p.mid
      left join subscription_market_state st on st.subscription_id = s.id and st.market_id = m.id
      left join subscription_preferences sp on sp.subscription_id = s.id
      where not m.closed and m.yes_token_id <> ''
      order by s.id, m.id`,
    on,
  );
  return rows.map((r) => ({
    subscriptionId: r.subscription_id,
    marketId: r.market_id,
    token: r.token,
    type: r.type,
    thresholdPercent: Number(r.threshold_percent),
    window: (MOVE_WINDOWS as readonly string[]).includes(r.move_window ?? '') ? (r.move_window as MoveWindow) : null,
    triggerType: r.trigger_type,
    triggerInterval: r.trigger_interval,
    expiresAtMs: num(r.expires_at_ms),
    updatedAtMs: num(r.updated_at_ms),
    lastFiredAtMs: num(r.last_fired_at_ms),
    rearmPoints: Number(r.rearm_points),
    rearmAfter: r.rearm_after,
  }));
}

/** The engine's rule for one pair, under the dense id the runner chose. */
export function compileRule(pair: RulePair, ruleId: number): CompiledRule {
  return {
    ruleId,
    subscriptionId: pair.subscriptionId,
    marketId: pair.marketId,
    token: pair.token,
    type: pair.type,
    threshold: thresholdFraction(pair.thresholdPercent),
    // A move rule without a stored window never fires (the index skips it); the API refuses one.
    ...(pair.window !== null ? { window: pair.window } : {}),
    oneTime: pair.triggerType === 'One Time',
    intervalMs: TRIGGER_INTERVAL_MS[pair.triggerInterval ?? DEFAULT_TRIGGER_INTERVAL],
    expiresAtMs: pair.expiresAtMs,
    enabled: true,
    lastFiredAtMs: pair.lastFiredAtMs,
    rearmBand: thresholdFraction(pair.rearmPoints),
    rearmAfter: pair.rearmAfter,
  };
}

/** The saved re-arm bands of the rules on these tokens, as `expandPriceRules` reads them. */
export async function savedBands(
  database: Database,
  tokens: readonly string[],
): Promise<Array<{ subscriptionId: string; marketId: string; rearmAfter: RearmSide | null }>> {
  if (tokens.length === 0) return [];
  const rows = await database.rows<{ subscription_id: string; market_id: string; rearm_after: RearmSide | null }>(sql`
    select st.subscription_id, st.market_id,
           case when s.updated_at is null or st.last_fired_at > s.updated_at then st.rearm_after end as rearm_after
    from subscription_market_state st
    join subscriptions s on s.id = st.subscription_id
    join catalog_markets m on m.id = st.market_id
    where m.yes_token_id in (${sql.join(tokens.map((t) => sql`${t}`), sql`, `)})`);
  return rows.map((r) => ({ subscriptionId: r.subscription_id, marketId: r.market_id, rearmAfter: r.rearm_after }));
}

/** Ids of the subscriptions a watchlist change can affect (its own). */
export async function subscriptionsOfWatchlist(database: Database, watchlistId: string): Promise<string[]> {
  const rows = await database.rows<{ id: string }>(sql`select id from subscriptions where watchlist_id = ${watchlistId}`);
  return rows.map((r) => r.id);
}

/** Ids of the subscriptions whose scope can include markets of the event. */
export async function subscriptionsTouchingEvent(database: Database, eventId: string): Promise<string[]> {
  const rows = await database.rows<{ id: string }>(sql`
    select s.id from subscriptions s
    where s.event_id = ${eventId}
       or s.market_id in (select id from catalog_markets where event_id = ${eventId})
       or (s.scope = 'Watchlist' and s.watchlist_id in (select watchlist_id from watchlist_events where event_id = ${eventId}))`);
  return rows.map((r) => r.id);
}

import { sql, type SQL } from 'drizzle-orm';
import { prepared, type Database } from '../db/client.js';
import {
  DEFAULT_TRIGGER_INTERVAL,
  LARGE_TRADE_TYPE,
  VOLUME_SPIKE_TYPE,
  MOVE_RULE_TYPES,
  MOVE_WINDOWS,
  TRIGGER_INTERVAL_MS,
  type MoveWindow,
  type TriggerInterval,
  type TriggerType,
  PRICE_RULE_TYPES,
} from '../domain/enums.js';
import type { ExtraRuleParams } from '../domain/rule-params.js';
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

/** One enabled `Large Trade` or `Volume Spike` subscription on one open market. */
export interface TradeRulePair {
  subscriptionId: string;
  marketId: string;
  token: string;
  type: TradeRuleType;
  params: ExtraRuleParams;
  triggerType: TriggerType;
  triggerInterval: TriggerInterval | null;
  expiresAtMs: number | null;
  updatedAtMs: number | null;
  lastFiredAtMs: number | null;
  /** The market's `volume24hr` as the catalog last synced it. */
  volume24hr: number;
}

export const TRADE_RULE_TYPES = [LARGE_TRADE_TYPE, VOLUME_SPIKE_TYPE] as const;
type TradeRuleType = (typeof TRADE_RULE_TYPES)[number];

/** The engine's rules of some subscriptions: the price index's and the trade evaluators'. */
export interface ExpandedRules {
  prices: RulePair[];
  trades: TradeRulePair[];
}

type Row = {
  subscription_id: string;
  market_id: string;
  token: string;
  type: EngineRuleType | TradeRuleType;
  threshold_percent: number | null;
  rule_params: ExtraRuleParams | string | null;
  trigger_type: TriggerType;
  trigger_interval: TriggerInterval | null;
  expires_at_ms: number | string | null;
  updated_at_ms: number | string | null;
  last_fired_at_ms: number | string | null;
  rearm_points: number | string;
  rearm_after: RearmSide | null;
  volume_24hr: number | string | null;
};

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));
const isTradeType = (type: string): type is TradeRuleType => (TRADE_RULE_TYPES as readonly string[]).includes(type);

/**
 * Expands enabled price subscriptions to (subscription, market, Yes token) pairs by scope:
 * Market → its market; Event → every open market of the event; Watchlist → every open market in
 * the watchlist's `watchlist_markets`. `subscriptionIds` restricts to those subscriptions.
 */
export async function expandPriceRules(database: Database, subscriptionIds?: readonly string[]): Promise<RulePair[]> {
  return (await expandRules(database, subscriptionIds, { trades: false })).prices;
}

/**
 * The price rules (as `expandPriceRules`) and the trade rules (`Large Trade`, `Volume Spike`) of
 * these subscriptions (every one when undefined), in one query: a reload after each create or
 * edit is one statement (its parse and plan are most of its cost on PGlite), not one per kind.
 */
export async function expandRules(
  database: Database,
  subscriptionIds?: readonly string[],
  { trades = true }: { trades?: boolean } = {},
): Promise<ExpandedRules> {
  if (subscriptionIds && subscriptionIds.length === 0) return { prices: [], trades: [] };
  // The ids as one array parameter, so the statement's text is the same for any number of them
  // and a prepared statement (its parse and plan kept) serves every reload.
  const only: SQL = subscriptionIds ? sql`and s.id = any(${sql.param([...subscriptionIds])}::text[])` : sql``;
  const kinds = sql`(s.type in (${sql.join(INDEX_RULE_TYPES.map((t) => sql.raw(`'${t}'`)), sql`, `)}) and s.threshold_percent is not null)`;
  const rows = await database.rows<Row>(
    prepared(sql`
      with s as (
        select id, scope, event_id, market_id, watchlist_id, type, threshold_percent, trigger_type,
               trigger_interval, expires_at, updated_at, rule_params
        from subscriptions s
        where s.enabled and ${trades ? sql`(${kinds} or s.type in (${sql.join(TRADE_RULE_TYPES.map((t) => sql.raw(`'${t}'`)), sql`, `)}))` : kinds} ${only}
      ), pairs as (
        -- Disjoint and without repeats (a market is in one event, and once in a watchlist): union
        -- all. The Market scope's market is checked by the join below, not by a join of its own.
        select s.id as sid, s.market_id as mid from s where s.scope = 'Market'
        union all
        select s.id, m.id from s join catalog_markets m on m.event_id = s.event_id
          where s.scope = 'Event'
        union all
        select s.id, wm.market_id from s join watchlist_markets wm on wm.watchlist_id = s.watchlist_id
          where s.scope = 'Watchlist'
      )
      select s.id as subscription_id, m.id as market_id, m.yes_token_id as token, s.type,
             s.threshold_percent, s.rule_params, s.trigger_type, s.trigger_interval, m.volume_24hr,
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
      order by s.id, m.id`),
  );
  const expanded: ExpandedRules = { prices: [], trades: [] };
  for (const r of rows) {
    const params = (typeof r.rule_params === 'string' ? JSON.parse(r.rule_params) : r.rule_params) as ExtraRuleParams | null;
    const common = {
      subscriptionId: r.subscription_id,
      marketId: r.market_id,
      token: r.token,
      triggerType: r.trigger_type,
      triggerInterval: r.trigger_interval,
      expiresAtMs: num(r.expires_at_ms),
      updatedAtMs: num(r.updated_at_ms),
      lastFiredAtMs: num(r.last_fired_at_ms),
    };
    if (isTradeType(r.type)) {
      expanded.trades.push({ ...common, type: r.type, params: params ?? {}, volume24hr: num(r.volume_24hr) ?? 0 });
      continue;
    }
    const window = params?.window ?? null;
    expanded.prices.push({
      ...common,
      type: r.type,
      thresholdPercent: Number(r.threshold_percent),
      window: (MOVE_WINDOWS as readonly string[]).includes(window ?? '') ? (window as MoveWindow) : null,
      rearmPoints: Number(r.rearm_points),
      rearmAfter: r.rearm_after,
    });
  }
  return expanded;
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

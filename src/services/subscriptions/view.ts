import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { channelStatus, type LatestDelivery } from '../../delivery/channel-status.js';
import type { ChannelSettings } from '../../db/schema/index.js';
import { storedParams, type ExtraRuleParams } from '../../domain/rule-params.js';
import {
  CATALOG_RULE_TYPE,
  type ChannelStatus,
  type ChannelType,
  type ClosingSoonHours,
  type MoveWindow,
  type StatusReason,
  type SubscriptionScope,
  type SubscriptionType,
  type TradeSide,
  type TriggerInterval,
  type TriggerType,
} from '../../domain/enums.js';

/** A subscription answer with exactly the spec's properties (optional ones only when known). */
export interface SubscriptionView {
  subscriptionId: string;
  watchlistId: string;
  watchlistName: string;
  eventId?: string;
  eventTitle?: string;
  marketId?: string;
  marketQuestion?: string;
  subscriptionScope: SubscriptionScope;
  subscriptionTypeConfig: { type: SubscriptionType; config: { params: StoredRuleParams } };
  rule: { type: SubscriptionType; params: RuleViewParams } | { type: SubscriptionType };
  createdAt: string;
  expiresAt: string | null;
  updatedAt: string | null;
  status: { enabled: boolean; reason: StatusReason };
  triggerType: TriggerType;
  triggerInterval?: TriggerInterval;
  triggerCount: number;
  lastTriggeredAt: string | null;
  channels: { type: ChannelType; settings?: ChannelSettings; status?: ChannelStatus }[];
}

type StoredRuleParams = ReturnType<typeof storedParams>;

/** The spec's `rule.params` (camelCase), with our extension types' parameters beside the threshold. */
export interface RuleViewParams {
  thresholdPercent?: number;
  window?: MoveWindow;
  minUsd?: number;
  side?: TradeSide;
  multiple?: number;
  hoursBefore?: ClosingSoonHours;
  triggerType: TriggerType;
  triggerInterval?: TriggerInterval;
}

type Filter = { accountId: string; subscriptionId?: string; watchlistId?: string };

/** A subscription row as the listing query's JSON gives it (column names, timestamps as text). */
export interface JsonRow {
  id: string;
  watchlist_id: string;
  watchlist_name: string;
  scope: SubscriptionScope;
  event_id: string | null;
  event_title: string | null;
  market_id: string | null;
  market_question: string | null;
  type: SubscriptionType;
  threshold_percent: number | null;
  rule_params: ExtraRuleParams | null;
  trigger_type: TriggerType;
  trigger_interval: TriggerInterval | null;
  expires_at: string | null;
  enabled: boolean;
  status_reason: StatusReason;
  trigger_count: number;
  last_triggered_at: string | null;
  created_at: string;
  updated_at: string | null;
  channels: { position: number; type: ChannelType; settings: ChannelSettings | null }[] | null;
  /** The deliveries of the subscription's latest notification (channel-status.ts). */
  latest: LatestDelivery[] | null;
}

/**
 * The subscriptions, with their channels and the deliveries of each one's latest notification, in
 * one query answering one JSON document. Row by row and in three queries this was ~4x the work on
 * PGlite, whose driver decodes every field of every row in JavaScript (100 subscriptions: ~3,000
 * fields); one JSON text is decoded once and parsed natively.
 */
export async function loadSubscriptionViews(on: Queryable, filter: Filter): Promise<SubscriptionView[]> {
  const conditions = [sql`s.account_id = ${filter.accountId}`];
  if (filter.subscriptionId) conditions.push(sql`s.id = ${filter.subscriptionId}`);
  if (filter.watchlistId) conditions.push(sql`s.watchlist_id = ${filter.watchlistId}`);
  const [result] = await queryRows<{ views: JsonRow[] | string | null }>(
    on,
    sql`select json_agg(x order by x.created_at desc, x.id desc) as views from (
      select s.id, s.watchlist_id, w.name as watchlist_name, s.scope, s.event_id, e.title as event_title,
        s.market_id, m.question as market_question, s.type, s.threshold_percent, s.rule_params, s.trigger_type,
        s.trigger_interval, s.expires_at, s.enabled, s.status_reason, s.trigger_count,
        s.last_triggered_at, s.created_at, s.updated_at,
        (select json_agg(json_build_object('position', c.position, 'type', c.type, 'settings', c.settings) order by c.position)
          from subscription_channels c where c.subscription_id = s.id) as channels,
        (select json_agg(json_build_object('position', d.position, 'type', d.channel_type, 'settings', d.settings, 'status', d.status) order by d.position)
          from deliveries d
          where d.notification_id = (select n.id from notifications n where n.subscription_id = s.id order by n.id desc limit 1)) as latest
      from subscriptions s
      join watchlists w on w.id = s.watchlist_id
      left join catalog_events e on e.id = s.event_id
      left join catalog_markets m on m.id = s.market_id
      where ${sql.join(conditions, sql` and `)}
    ) x`,
  );
  const views = result?.views;
  if (!views) return [];
  // postgres.js parses json itself; PGlite's drizzle driver may hand it over as text.
  const rows = typeof views === 'string' ? (JSON.parse(views) as JsonRow[]) : views;
  return rows.map(toView);
}

/**
 * A channel's settings as the API shows them: the spec's only. A Discord DM channel (our
 * `discordChannelId`, made by the bot) reads as a bare `Discord` channel.
 */
function shownSettings(settings: ChannelSettings | null): ChannelSettings | undefined {
  if (!settings) return undefined;
  const { discordChannelId: _dm, ...spec } = settings;
  return Object.keys(spec).length > 0 ? spec : undefined;
}

const iso = (text: string) => new Date(text).toISOString();
const isoOrNull = (text: string | null) => (text === null ? null : iso(text));

/** The answer for one subscription row (the listing's, or a create's from what its insert returned). */
export function toView(row: JsonRow): SubscriptionView {
  const isCatalog = row.type === CATALOG_RULE_TYPE;
  const params = storedParams({ thresholdPercent: row.threshold_percent, ruleParams: row.rule_params });
  const interval = row.trigger_interval ?? undefined;
  const latest = row.latest ?? undefined;
  const channels = (row.channels ?? []).map((c) => {
    const status = channelStatus(c, latest);
    const settings = shownSettings(c.settings);
    return { type: c.type, ...(settings ? { settings } : {}), ...(status ? { status } : {}) };
  });
  return {
    subscriptionId: row.id,
    watchlistId: row.watchlist_id,
    watchlistName: row.watchlist_name,
    ...(row.event_id ? { eventId: row.event_id, ...(row.event_title !== null ? { eventTitle: row.event_title } : {}) } : {}),
    ...(row.market_id ? { marketId: row.market_id, ...(row.market_question !== null ? { marketQuestion: row.market_question } : {}) } : {}),
    subscriptionScope: row.scope,
    subscriptionTypeConfig: { type: row.type, config: { params: isCatalog ? {} : params } },
    rule: isCatalog
      ? { type: row.type }
      : {
          type: row.type,
          params: {
            ...(params.threshold_percent !== undefined ? { thresholdPercent: params.threshold_percent } : {}),
            ...(params.window ? { window: params.window } : {}),
            ...(params.min_usd !== undefined ? { minUsd: params.min_usd } : {}),
            ...(params.side ? { side: params.side } : {}),
            ...(params.multiple !== undefined ? { multiple: params.multiple } : {}),
            ...(params.hours_before !== undefined ? { hoursBefore: params.hours_before } : {}),
            triggerType: row.trigger_type,
            ...(interval ? { triggerInterval: interval } : {}),
          },
        },
    createdAt: iso(row.created_at),
    expiresAt: isoOrNull(row.expires_at),
    updatedAt: isoOrNull(row.updated_at),
    status: { enabled: row.enabled, reason: row.status_reason },
    triggerType: row.trigger_type,
    ...(interval ? { triggerInterval: interval } : {}),
    triggerCount: row.trigger_count,
    lastTriggeredAt: isoOrNull(row.last_triggered_at),
    channels,
  };
}

export async function loadSubscriptionView(on: Queryable, accountId: string, subscriptionId: string) {
  const [view] = await loadSubscriptionViews(on, { accountId, subscriptionId });
  return view;
}

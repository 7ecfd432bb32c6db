// Every enum string of the spec is defined here once and shared by the database columns,
// the zod schemas, the OpenAPI document and the engine.

export const PRICE_RULE_TYPES = [
  'Crossing',
  'Crossing Up',
  'Crossing Down',
  'Crossing Step',
  'Greater Than',
  'Less Than',
] as const;
export type PriceRuleType = (typeof PRICE_RULE_TYPES)[number];
const PRICE_RULE_TYPE_SET: ReadonlySet<string> = new Set(PRICE_RULE_TYPES);
/** One of the spec's six price rule types, which the rule index evaluates on every displayed price. */
export const isPriceRuleType = (type: string): type is PriceRuleType => PRICE_RULE_TYPE_SET.has(type);


export const CATALOG_RULE_TYPE = 'New or closed events and markets' as const;

// Our extension of the spec's enum (docs/alerts.md "Richer triggers"): every spec rule about scopes,
// trigger modes, intervals, channels and payloads applies to these as to the spec's own types.
export const MOVE_RULE_TYPES = ['Moves Up By', 'Moves Down By', 'Moves By'] as const;
export type MoveRuleType = (typeof MOVE_RULE_TYPES)[number];
export const LARGE_TRADE_TYPE = 'Large Trade' as const;
export const VOLUME_SPIKE_TYPE = 'Volume Spike' as const;
export const RESOLUTION_TYPE = 'Resolution' as const;
export const CLOSING_SOON_TYPE = 'Closing Soon' as const;
export const EXTENSION_RULE_TYPES = [...MOVE_RULE_TYPES, LARGE_TRADE_TYPE, VOLUME_SPIKE_TYPE, RESOLUTION_TYPE, CLOSING_SOON_TYPE] as const;

/** The windows a `Moves … By` rule measures over. */
export const MOVE_WINDOWS = ['5m', '15m', '1h', '4h', '24h'] as const;
export type MoveWindow = (typeof MOVE_WINDOWS)[number];
export const MOVE_WINDOW_MS: Record<MoveWindow, number> = {
  '5m': 5 * 60_000,
  '15m': 15 * 60_000,
  '1h': 60 * 60_000,
  '4h': 4 * 60 * 60_000,
  '24h': 24 * 60 * 60_000,
};
const MOVE_RULE_TYPE_SET: ReadonlySet<string> = new Set(MOVE_RULE_TYPES);
/** `Moves Up By`, `Moves Down By` or `Moves By`: the rule index evaluates them beside the price rules. */
export const isMoveRuleType = (type: string): type is MoveRuleType => MOVE_RULE_TYPE_SET.has(type);

export const TRADE_SIDES = ['BUY', 'SELL'] as const;
export type TradeSide = (typeof TRADE_SIDES)[number];

/** How long before a market's `endDate` a `Closing Soon` rule may fire. */
export const CLOSING_SOON_HOURS = [1, 6, 24, 72] as const;
export type ClosingSoonHours = (typeof CLOSING_SOON_HOURS)[number];

/** A `Volume Spike` multiple below this would fire on ordinary hour-to-hour noise. */
export const MIN_VOLUME_SPIKE_MULTIPLE = 1.5;

export const SUBSCRIPTION_TYPES = [...PRICE_RULE_TYPES, CATALOG_RULE_TYPE, ...EXTENSION_RULE_TYPES] as const;
export type SubscriptionType = (typeof SUBSCRIPTION_TYPES)[number];

export const SUBSCRIPTION_SCOPES = ['Watchlist', 'Event', 'Market'] as const;
export type SubscriptionScope = (typeof SUBSCRIPTION_SCOPES)[number];

export const TRIGGER_TYPES = ['One Time', 'Recurring'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

const REARM_RULE_TYPES: ReadonlySet<string> = new Set<PriceRuleType>(['Crossing', 'Crossing Up', 'Crossing Down']);

/**
 * Whether a re-arm band (`rearmPoints`) means anything to a rule, for what people are shown: the
 * engine applies one to Recurring Crossing, Crossing Up and Crossing Down rules only
 * (src/engine/rules.ts `effectiveBand`; docs/decisions.md "Re-arm bands").
 */
export const rearmApplies = (type: string, triggerType: TriggerType): boolean => REARM_RULE_TYPES.has(type) && triggerType === 'Recurring';

export const TRIGGER_INTERVALS = ['0m', '5m', '30m', '60m', '6h', '12h', '24h'] as const;
export type TriggerInterval = (typeof TRIGGER_INTERVALS)[number];
export const DEFAULT_TRIGGER_INTERVAL: TriggerInterval = '30m';

const MINUTE = 60_000;

export const TRIGGER_INTERVAL_MS: Record<TriggerInterval, number> = {
  '0m': 0,
  '5m': 5 * MINUTE,
  '30m': 30 * MINUTE,
  '60m': 60 * MINUTE,
  '6h': 6 * 60 * MINUTE,
  '12h': 12 * 60 * MINUTE,
  '24h': 24 * 60 * MINUTE,
};

// Named once here; only src/domain/subscription-status.ts decides which one a subscription gets.
export const STATUS_REASON = {
  created: 'Created',
  updated: 'Updated',
  triggered: 'Triggered',
  pausedByUser: 'Paused by user',
  restartedByUser: 'Restarted by user',
  eventClosed: 'Event closed',
  marketClosed: 'Market closed',
} as const;
export const STATUS_REASONS = [
  STATUS_REASON.created,
  STATUS_REASON.updated,
  STATUS_REASON.triggered,
  STATUS_REASON.pausedByUser,
  STATUS_REASON.restartedByUser,
  STATUS_REASON.eventClosed,
  STATUS_REASON.marketClosed,
] as const;
export type StatusReason = (typeof STATUS_REASONS)[number];

export const CHANNEL_TYPES = ['In App', 'Webhook', 'Discord', 'Telegram'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** When a subscription's firings are sent: one by one, or collected into a digest (docs/delivery.md). */
export const DELIVERY_MODES = ['instant', 'hourly', 'daily'] as const;
export type DeliveryMode = (typeof DELIVERY_MODES)[number];

export const CHANNEL_STATUSES = ['BLOCKED_BY_USER', 'FAILED', 'PENDING', 'READ', 'SENT'] as const;
export type ChannelStatus = (typeof CHANNEL_STATUSES)[number];

export const MATCH_OPERATORS = ['OR', 'AND'] as const;
export type MatchOperator = (typeof MATCH_OPERATORS)[number];

// A notification payload's `type`. The first two are the spec's (src/delivery/payloads.ts builds them).
// endpointHealth is ours, not the spec's: a notice about a failing channel (docs/delivery.md).
// feedHealth is ours too: prices may be delayed, and the recovery (docs/delivery.md "Feed health").
export const NOTIFICATION_TYPE = {
  price: 'price_notification',
  eventStatus: 'event_status_notification',
  endpointHealth: 'endpoint_health_notification',
  feedHealth: 'feed_health_notification',
} as const;
export const NOTIFICATION_TYPES = [
  NOTIFICATION_TYPE.price,
  NOTIFICATION_TYPE.eventStatus,
  NOTIFICATION_TYPE.endpointHealth,
  NOTIFICATION_TYPE.feedHealth,
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export const EVENT_STATUS_SCOPES = ['Market', 'Event'] as const;
export type EventStatusScope = (typeof EVENT_STATUS_SCOPES)[number];

// `Resolution` and `Closing Soon` are ours: the notices of those rule types (docs/decisions.md).
export const EVENT_STATUS_TRIGGERS = ['Open', 'Closed', 'Resolution', 'Closing Soon'] as const;
export type EventStatusTrigger = (typeof EVENT_STATUS_TRIGGERS)[number];

// `resolution`: a market's umaResolutionStatus changed (catalog_changes.details says from what to what).
export const CATALOG_CHANGE_KINDS = ['new_event', 'new_market', 'closed_market', 'closed_event', 'resolution'] as const;
export type CatalogChangeKind = (typeof CATALOG_CHANGE_KINDS)[number];

export const ROLES = ['api', 'engine', 'worker', 'sync', 'bots'] as const;
export type Role = (typeof ROLES)[number];

/** What an api_tokens row is: an API token, or a web console session (sent as a cookie). */
export const TOKEN_KINDS = ['token', 'session'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

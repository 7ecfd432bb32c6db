import { bigint, boolean, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  CHANNEL_TYPES,
  DELIVERY_MODES,
  STATUS_REASONS,
  SUBSCRIPTION_SCOPES,
  SUBSCRIPTION_TYPES,
  TRIGGER_INTERVALS,
  TRIGGER_TYPES,
} from '../../domain/enums.js';
import type { ExtraRuleParams } from '../../domain/rule-params.js';
import { accounts } from './accounts.js';
import { createdAt, ts } from './columns.js';
import { watchlists } from './watchlists.js';

export interface ChannelSettings {
  telegramChatId?: number;
  webhookUrl?: string;
  discordWebhookUrl?: string;
  /** A Discord DM the bot posts to itself (our extension; never shown by the REST API). */
  discordChannelId?: string;
}

export const subscriptions = pgTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    watchlistId: text('watchlist_id')
      .notNull()
      .references(() => watchlists.id, { onDelete: 'cascade' }),
    scope: text('scope', { enum: SUBSCRIPTION_SCOPES }).notNull(),
    eventId: text('event_id'),
    marketId: text('market_id'),
    type: text('type', { enum: SUBSCRIPTION_TYPES }).notNull(),
    thresholdPercent: doublePrecision('threshold_percent'),
    ruleParams: jsonb('rule_params').$type<ExtraRuleParams>(),
    triggerType: text('trigger_type', { enum: TRIGGER_TYPES }).notNull(),
    triggerInterval: text('trigger_interval', { enum: TRIGGER_INTERVALS }),
    expiresAt: ts('expires_at'),
    enabled: boolean('enabled').notNull().default(true),
    statusReason: text('status_reason', { enum: STATUS_REASONS }).notNull(),
    triggerCount: integer('trigger_count').notNull().default(0),
    lastTriggeredAt: ts('last_triggered_at'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at'),
  },
  (t) => [
    index('subscriptions_account_idx').on(t.accountId, t.createdAt),
    index('subscriptions_watchlist_idx').on(t.watchlistId),
  ],
);

/**
 * A counter per account that every change shown by its subscription listing raises, in the
 * changing transaction: database triggers on each table the listing reads (drizzle/0018_listing_version_triggers.sql), so
 * no writer can forget it. The API serves a cached listing while the counter is unchanged
 * (services/subscriptions/listing-cache.ts). No foreign key on purpose: a row is never deleted,
 * so a counter never restarts at a value a cached listing was kept under (an account's deletion
 * leaves its row; nothing reads it again).
 */
export const subscriptionListVersions = pgTable('subscription_list_versions', {
  accountId: text('account_id').primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull(),
  /**
   * How many subscriptions the account holds, kept by the same trigger in the same upsert
   * (drizzle/0023): the create's MAX_SUBSCRIPTIONS check reads it instead of counting the
   * account's rows, which grew with them (~0.25 ms of a PGlite create at 1,000).
   */
  subscriptions: integer('subscriptions').notNull().default(0),
});

export const subscriptionChannels = pgTable(
  'subscription_channels',
  {
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    type: text('type', { enum: CHANNEL_TYPES }).notNull(),
    settings: jsonb('settings').$type<ChannelSettings>(),
    // Endpoint health (docs/delivery.md): kept current by the delivery worker's outcome write, so
    // deciding to warn or disable needs no scan of past deliveries. Reset by a success.
    /** When the first of the channel's current run of failed deliveries was due. */
    failingSince: ts('failing_since'),
    /** Notifications whose delivery to this channel failed since the last success. */
    failedNotifications: integer('failed_notifications').notNull().default(0),
    lastError: text('last_error'),
    /** When the half-span warning went out for the current run of failures. */
    warnedAt: ts('warned_at'),
    /** Set: deliveries to this channel are recorded FAILED without a send, until re-enabled. */
    disabledAt: ts('disabled_at'),
    disabledReason: text('disabled_reason'),
  },
  (t) => [uniqueIndex('subscription_channels_pk').on(t.subscriptionId, t.position)],
);

// When each (subscription, market) last fired: the Recurring pause is kept per market, and so is
// the re-arm band the price has not gone back past yet (docs/engine.md, "Re-arm bands").
export const subscriptionMarketState = pgTable(
  'subscription_market_state',
  {
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'cascade' }),
    marketId: text('market_id').notNull(),
    lastFiredAt: ts('last_fired_at').notNull(),
    /** Direction of the firing whose band is not passed yet; null when the rule is armed. */
    rearmAfter: text('rearm_after', { enum: ['up', 'down'] }),
  },
  (t) => [uniqueIndex('subscription_market_state_pk').on(t.subscriptionId, t.marketId)],
);

/**
 * Closing Soon firings in force: one row per rule and market whose endDate came within the rule's
 * hours, written with the notice. The row going away (the endDate moved out of the window) re-arms
 * the pair; its primary key is what lets one engine process only fire a pair.
 */
export const closingSoonMarks = pgTable(
  'closing_soon_marks',
  {
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'cascade' }),
    marketId: text('market_id').notNull(),
    endDate: ts('end_date').notNull(),
    firedAt: ts('fired_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.subscriptionId, t.marketId] })],
);

/**
 * Noise control per subscription (docs/delivery.md, "Noise control"). A table of its own: the
 * spec's subscription object has no other properties. No row means the defaults.
 */
export const subscriptionPreferences = pgTable('subscription_preferences', {
  subscriptionId: text('subscription_id')
    .primaryKey()
    .references(() => subscriptions.id, { onDelete: 'cascade' }),
  /** Until then, firings go to the In App inbox only; the other channels are recorded unsent. */
  snoozedUntil: ts('snoozed_until'),
  delivery: text('delivery', { enum: DELIVERY_MODES }).notNull().default('instant'),
  rearmPoints: doublePrecision('rearm_points').notNull().default(0),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

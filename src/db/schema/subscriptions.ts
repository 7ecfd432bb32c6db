import { boolean, doublePrecision, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  CHANNEL_TYPES,
  STATUS_REASONS,
  SUBSCRIPTION_SCOPES,
  SUBSCRIPTION_TYPES,
  TRIGGER_INTERVALS,
  TRIGGER_TYPES,
} from '../../domain/enums.js';
import { accounts } from './accounts.js';
import { createdAt, ts } from './columns.js';
import { watchlists } from './watchlists.js';

export interface ChannelSettings {
  telegramChatId?: number;
  webhookUrl?: string;
  discordWebhookUrl?: string;
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
    triggerType: text('trigger_type', { enum: TRIGGER_TYPES }).notNull(),
    triggerInterval: text('trigger_interval', { enum: TRIGGER_INTERVALS }),
    expiresAt: ts('expires_at'),
    enabled: boolean('enabled').notNull().default(true),
    statusReason: text('status_reason', { enum: STATUS_REASONS }).notNull(),
    triggerCount: integer('trigger_count').notNull().default(0),
    lastTriggeredAt: ts('last_triggered_at'),
    // Bumped on every user change so the engine can tell a restart from a stale notice.
    revision: integer('revision').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: ts('updated_at'),
  },
  (t) => [
    index('subscriptions_account_idx').on(t.accountId, t.createdAt),
    index('subscriptions_watchlist_idx').on(t.watchlistId),
  ],
);

export const subscriptionChannels = pgTable(
  'subscription_channels',
  {
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    type: text('type', { enum: CHANNEL_TYPES }).notNull(),
    settings: jsonb('settings').$type<ChannelSettings>(),
  },
  (t) => [uniqueIndex('subscription_channels_pk').on(t.subscriptionId, t.position)],
);

// When each (subscription, market) last fired: the Recurring pause is kept per market.
export const subscriptionMarketState = pgTable(
  'subscription_market_state',
  {
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'cascade' }),
    marketId: text('market_id').notNull(),
    lastFiredAt: ts('last_fired_at').notNull(),
  },
  (t) => [uniqueIndex('subscription_market_state_pk').on(t.subscriptionId, t.marketId)],
);

import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { CHANNEL_STATUSES, CHANNEL_TYPES, NOTIFICATION_TYPES } from '../../domain/enums.js';
import { accounts } from './accounts.js';
import { createdAt, ts } from './columns.js';
import type { ChannelSettings } from './subscriptions.js';

export const notifications = pgTable(
  'notifications',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    subscriptionId: text('subscription_id'),
    type: text('type', { enum: NOTIFICATION_TYPES }).notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    // One firing per subscription, market and detection: a replayed firing hits this key.
    dedupeKey: text('dedupe_key').notNull(),
    createdAt: createdAt(),
    readAt: ts('read_at'),
    /** Set when the subscription was snoozed as this was written: only the In App channel had it. */
    snoozedUntil: ts('snoozed_until'),
  },
  (t) => [
    uniqueIndex('notifications_dedupe_idx').on(t.dedupeKey),
    index('notifications_account_idx').on(t.accountId, t.id),
    // A subscription's latest notification, whose deliveries give its channels' status (channel-status.ts).
    index('notifications_subscription_idx').on(t.subscriptionId, t.id),
  ],
);

export const deliveries = pgTable(
  'deliveries',
  {
    id: text('id').primaryKey(),
    notificationId: text('notification_id')
      .notNull()
      .references(() => notifications.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    channelType: text('channel_type', { enum: CHANNEL_TYPES }).notNull(),
    settings: jsonb('settings').$type<ChannelSettings>(),
    status: text('status', { enum: CHANNEL_STATUSES }).notNull().default('PENDING'),
    attempts: integer('attempts').notNull().default(0),
    dueAt: ts('due_at').notNull().defaultNow(),
    leaseUntil: ts('lease_until'),
    lastError: text('last_error'),
    /**
     * Set when the delivery is held to be sent in one summary with others (quiet hours, a digest,
     * a burst): the deliveries of one key go to one destination and are due together (batches.ts).
     */
    batchKey: text('batch_key'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('deliveries_notification_channel_idx').on(t.notificationId, t.position),
    // The claim's queue: pending deliveries in due order. Partial, so a delivery leaves it when it is
    // settled (sent, failed) and the index holds the queue only, not the history; the claim reads it
    // in order through pick_due_deliveries (drizzle/0021), whatever the table's statistics say.
    index('deliveries_pending_due_idx').on(t.dueAt).where(sql`status = 'PENDING'`),
    index('deliveries_batch_idx').on(t.batchKey).where(sql`batch_key is not null`),
  ],
);

/**
 * Burst grouping: each chat destination's current window, counted in the database so that every
 * writer of the outbox (several engine processes) shares one count.
 */
export const deliveryBursts = pgTable('delivery_bursts', {
  /** The account and chat (batches.ts `destinationOf`), hashed. */
  destination: text('destination').primaryKey(),
  accountId: text('account_id')
    .notNull()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  windowStart: ts('window_start').notNull(),
  count: integer('count').notNull(),
});

export const deliveryAttempts = pgTable(
  'delivery_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => deliveries.id, { onDelete: 'cascade' }),
    at: ts('at').notNull().defaultNow(),
    statusCode: integer('status_code'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
  },
  (t) => [index('delivery_attempts_delivery_idx').on(t.deliveryId)],
);

export const demoWebhooks = pgTable(
  'demo_webhooks',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    active: boolean('active').notNull().default(true),
    createdAt: createdAt(),
    deletedAt: ts('deleted_at'),
  },
  (t) => [index('demo_webhooks_account_idx').on(t.accountId)],
);

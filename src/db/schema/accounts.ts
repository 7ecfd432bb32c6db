import { boolean, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import type { ChannelType, TokenKind } from '../../domain/enums.js';
import { createdAt, ts } from './columns.js';

export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  name: text('name'),
  isAdmin: boolean('is_admin').notNull().default(false),
  webhookSecret: text('webhook_secret').notNull(),
  /** The secret before the last rotation: deliveries carry its signature too for a grace window. */
  previousWebhookSecret: text('previous_webhook_secret'),
  webhookSecretRotatedAt: ts('webhook_secret_rotated_at'),
  discordUserId: text('discord_user_id').unique(),
  telegramUserId: text('telegram_user_id').unique(),
  createdAt: createdAt(),
});

export const apiTokens = pgTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    prefix: text('prefix').notNull(),
    /** A `session` is the console's sign-in: sent as a cookie, never as Bearer (docs/console.md). */
    kind: text('kind').$type<TokenKind>().notNull().default('token'),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: createdAt(),
    expiresAt: ts('expires_at'),
    revokedAt: ts('revoked_at'),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [index('api_tokens_account_idx').on(t.accountId)],
);

/**
 * One-time sign-in codes that `/login` in a chat sends as a link: only the hash is kept, and
 * redeeming sets `usedAt` in the same statement that checks it, so a code works once.
 */
export const loginCodes = pgTable(
  'login_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
  },
  (t) => [index('login_codes_expires_idx').on(t.expiresAt)],
);

/** Account-wide noise control (docs/delivery.md, "Noise control"). No row means the defaults. */
export const accountPreferences = pgTable('account_preferences', {
  accountId: text('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  /** An IANA zone name, checked with the runtime's Intl data when written. */
  timezone: text('timezone').notNull().default('UTC'),
  quietHours: jsonb('quiet_hours').$type<{ start: string; end: string; channels: ChannelType[] }>(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * One-time codes that let a chat user join this account (`POST /links`, then `/link <code>` in a
 * bot). Only the code's SHA-256 is kept; a code is used once and lives minutes (docs/bots.md).
 */
export const linkCodes = pgTable(
  'link_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: createdAt(),
  },
  (t) => [index('link_codes_account_idx').on(t.accountId)],
);

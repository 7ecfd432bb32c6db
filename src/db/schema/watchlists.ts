import { boolean, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import type { MatchOperator } from '../../domain/enums.js';
import { accounts } from './accounts.js';
import { catalogEvents, catalogMarkets } from './catalog.js';
import { createdAt, ts } from './columns.js';

export interface StoredQuery {
  keyphrases: { text: string; include: boolean }[];
  tags: { tagSlug: string; include: boolean }[];
  searchMatchOperator: MatchOperator;
  createdAt: string;
}

export const watchlists = pgTable(
  'watchlists',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    query: jsonb('query').$type<StoredQuery>().notNull(),
    automaticallyAddMatchingEvents: boolean('auto_add_matching_events').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('watchlists_account_idx').on(t.accountId, t.createdAt)],
);

export const watchlistEvents = pgTable(
  'watchlist_events',
  {
    watchlistId: text('watchlist_id')
      .notNull()
      .references(() => watchlists.id, { onDelete: 'cascade' }),
    eventId: text('event_id')
      .notNull()
      .references(() => catalogEvents.id),
    autoFetch: boolean('auto_fetch').notNull().default(true),
    addedAt: ts('added_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.watchlistId, t.eventId] }), index('watchlist_events_event_idx').on(t.eventId)],
);

export const watchlistMarkets = pgTable(
  'watchlist_markets',
  {
    watchlistId: text('watchlist_id')
      .notNull()
      .references(() => watchlists.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    marketId: text('market_id')
      .notNull()
      .references(() => catalogMarkets.id),
    position: integer('position').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.watchlistId, t.eventId, t.marketId] }),
    index('watchlist_markets_market_idx').on(t.marketId),
  ],
);

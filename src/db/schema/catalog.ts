import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, customType, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { CATALOG_CHANGE_KINDS } from '../../domain/enums.js';
import { ts } from './columns.js';

export interface CatalogChangeDetails {
  resolutionStatus: string;
  previousResolutionStatus: string;
  outcome?: string;
}

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

// The venue's catalog as last synced. Rows are never deleted: a closed event or market stays, so
// watchlists and notifications keep pointing at something.
export const catalogEvents = pgTable(
  'catalog_events',
  {
    id: text('id').primaryKey(),
    slug: text('slug').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    image: text('image').notNull().default(''),
    icon: text('icon').notNull().default(''),
    active: boolean('active').notNull().default(true),
    closed: boolean('closed').notNull().default(false),
    archived: boolean('archived').notNull().default(false),
    negRisk: boolean('neg_risk').notNull().default(false),
    startDate: ts('start_date'),
    endDate: ts('end_date'),
    volume: doublePrecision('volume').notNull().default(0),
    volume24hr: doublePrecision('volume_24hr').notNull().default(0),
    liquidity: doublePrecision('liquidity').notNull().default(0),
    firstSeenAt: ts('first_seen_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    closedAt: ts('closed_at'),
    // Full-text search over title and description ('english' stemming; PGlite has the same config).
    search: tsvector('search')
      .notNull()
      .generatedAlwaysAs(sql`to_tsvector('english', coalesce(title, '') || ' ' || coalesce(description, ''))`),
  },
  (t) => [
    index('catalog_events_slug_idx').on(t.slug),
    index('catalog_events_open_idx').on(t.closed, t.volume24hr),
    // The sync's read of the open events (src/catalog/state.ts): closed ones pile up for good.
    index('catalog_events_open_id_idx').on(t.id).where(sql`not closed`),
    index('catalog_events_search_idx').using('gin', t.search),
    // People-search (src/services/search/find.ts): word prefixes, substrings and typos via pg_trgm,
    // over open events' titles only (null for a closed one: closed rows pile up for good, and no
    // search reads them). An expression, not a partial index: the planner would answer a partial
    // index's `not closed` with a btree on `closed` and filter every open row instead.
    index('catalog_events_title_trgm_idx').using('gin', sql`(case when closed then null else lower(title) end) gin_trgm_ops`),
  ],
);

export const catalogMarkets = pgTable(
  'catalog_markets',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id')
      .notNull()
      .references(() => catalogEvents.id),
    position: integer('position').notNull().default(0),
    question: text('question').notNull(),
    slug: text('slug').notNull().default(''),
    groupItemTitle: text('group_item_title').notNull().default(''),
    conditionId: text('condition_id').notNull().default(''),
    outcomes: jsonb('outcomes').$type<string[]>().notNull(),
    outcomePrices: jsonb('outcome_prices').$type<number[]>().notNull(),
    clobTokenIds: jsonb('clob_token_ids').$type<string[]>().notNull(),
    // The first outcome's token: the one price rules watch.
    yesTokenId: text('yes_token_id').notNull(),
    image: text('image').notNull().default(''),
    active: boolean('active').notNull().default(true),
    closed: boolean('closed').notNull().default(false),
    archived: boolean('archived').notNull().default(false),
    volume: doublePrecision('volume').notNull().default(0),
    volume24hr: doublePrecision('volume_24hr').notNull().default(0),
    liquidity: doublePrecision('liquidity').notNull().default(0),
    bestBid: doublePrecision('best_bid'),
    bestAsk: doublePrecision('best_ask'),
    lastTradePrice: doublePrecision('last_trade_price'),
    endDate: ts('end_date'),
    // Not refreshed by the upsert: the sync flips it and records the change (a `resolution` change).
    umaResolutionStatus: text('uma_resolution_status').notNull().default(''),
    /** The winning outcome's name once resolved, when the venue's payout prices name one. */
    resolvedOutcome: text('resolved_outcome'),
    firstSeenAt: ts('first_seen_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    closedAt: ts('closed_at'),
  },
  (t) => [
    index('catalog_markets_event_idx').on(t.eventId),
    // The sync's read of the open markets (src/catalog/state.ts): closed ones pile up for good.
    index('catalog_markets_open_id_idx').on(t.id).where(sql`not closed`),
    index('catalog_markets_token_idx').on(t.yesTokenId),
    // Open markets' questions only, as the events' titles above.
    index('catalog_markets_question_trgm_idx').using('gin', sql`(case when closed then null else lower(question) end) gin_trgm_ops`),
  ],
);

export const catalogTags = pgTable('catalog_tags', {
  id: text('id').primaryKey(),
  slug: text('slug').notNull().unique(),
  label: text('label').notNull(),
});

export const catalogEventTags = pgTable(
  'catalog_event_tags',
  {
    eventId: text('event_id')
      .notNull()
      .references(() => catalogEvents.id, { onDelete: 'cascade' }),
    tagId: text('tag_id')
      .notNull()
      .references(() => catalogTags.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.tagId] }), index('catalog_event_tags_tag_idx').on(t.tagId)],
);

// What the sync saw change; the engine and the demo webhooks consume these in id order.
export const catalogChanges = pgTable(
  'catalog_changes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind', { enum: CATALOG_CHANGE_KINDS }).notNull(),
    eventId: text('event_id').notNull(),
    marketId: text('market_id'),
    detectedAt: ts('detected_at').notNull().defaultNow(),
    /** What a `resolution` change went from and to, as the sync saw it. */
    details: jsonb('details').$type<CatalogChangeDetails>(),
  },
  (t) => [index('catalog_changes_event_idx').on(t.eventId)],
);

// How far a reader of catalog_changes got, so changes made while it was stopped are still handled.
export const changeReaderPositions = pgTable('change_reader_positions', {
  reader: text('reader').primaryKey(),
  lastChangeId: bigint('last_change_id', { mode: 'number' }).notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export const marketSamples = pgTable(
  'market_samples',
  {
    marketId: text('market_id').notNull(),
    at: ts('at').notNull(),
    volume: doublePrecision('volume'),
    liquidity: doublePrecision('liquidity'),
    price: doublePrecision('price'),
  },
  // One partition per UTC day (drizzle/0030, src/db/day-partitions.ts): old samples go a day at a time.
  (t) => [primaryKey({ columns: [t.marketId, t.at] })],
);

// The engine's last displayed price per token, so a crossing made while it was down is found.
export const tokenPrices = pgTable('token_prices', {
  tokenId: text('token_id').primaryKey(),
  price: doublePrecision('price').notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

// The engine's displayed price per token and minute (the last one of the minute), kept 7 days for
// dry runs.
export const priceSamples = pgTable(
  'price_samples',
  {
    tokenId: text('token_id').notNull(),
    minute: ts('minute').notNull(),
    price: doublePrecision('price').notNull(),
  },
  // One partition per UTC day, as market_samples.
  (t) => [primaryKey({ columns: [t.tokenId, t.minute] })],
);

// Whether the catalog sync is failing, shared by every process: the sync leader of each tick
// writes it, the engine's feed health check reads it (docs/delivery.md "Feed health"). One row.
export const catalogSyncStatus = pgTable('catalog_sync_status', {
  id: text('id').primaryKey(),
  failingSince: ts('failing_since'),
  lastError: text('last_error'),
  lastSuccessAt: ts('last_success_at'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
  // When the first fill of the catalog finished: until then every pass is a first fill, which
  // records no openings (src/catalog/first-fill.ts), even when an earlier one stopped half-way.
  filledAt: ts('filled_at'),
});

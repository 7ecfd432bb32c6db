import { and, asc, gt, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { catalogEvents, catalogMarkets } from '../db/schema/index.js';
import type { VenueEvent } from '../venue/gamma/types.js';
import { chunks } from './rows.js';
import { firstFillDone } from './sync-status.js';

/**
 * What a pass needs of the stored catalog: the open rows, and the rows the venue's listing or a
 * closing names. Closed rows stay in the tables for good (rules, changes and history refer to
 * them), so these are read by what is open and what was fetched, never the whole tables.
 */
export interface StoredCatalog {
  /** The first fill finished (`catalog_sync_status.filled_at`); until then a pass records no openings. */
  filled: boolean;
  /** The stored ones among the fetched events' ids, and every open event. */
  eventIds: Set<string>;
  openEventIds: Set<string>;
  /**
   * Stored market id → its event id: the fetched markets that are stored (a market the venue
   * moved is found by it), every open market, and every market of an open event.
   */
  marketEvents: Map<string, string>;
  /** Open market id → its event id. */
  openMarkets: Map<string, string>;
  /** Market id → its stored umaResolutionStatus, for the same markets as `marketEvents`. */
  resolutionStatus: Map<string, string>;
}

// Rows per statement: on PGlite each statement holds the process's one connection (and its thread)
// while it runs, so none grows with the catalog.
const PAGE_ROWS = 5000;
const IDS_PER_LOOKUP = 1000;

interface MarketState {
  id: string;
  eventId: string;
  closed: boolean;
  status: string;
}
const MARKET_STATE = {
  id: catalogMarkets.id,
  eventId: catalogMarkets.eventId,
  closed: catalogMarkets.closed,
  status: catalogMarkets.umaResolutionStatus,
};

/**
 * Reads the stored state a pass compares `fetched` with (what a first fill that stopped half-way
 * wrote too). Each statement reads a page of rows or the rows of at most 1,000 ids, and what it
 * reads follows the open catalog (the open rows by their partial indexes, the markets of open
 * events, the fetched ids looked up by key), not how many rows closed over time; the closed markets
 * of an open event still grow with that event's own history (a long-running series).
 */
export async function loadStoredCatalog(database: Database, fetched: readonly VenueEvent[]): Promise<StoredCatalog> {
  const db = database.db;
  const filled = await firstFillDone(db);
  const stored: StoredCatalog = { filled, eventIds: new Set(), openEventIds: new Set(), marketEvents: new Map(), openMarkets: new Map(), resolutionStatus: new Map() };

  const openEvents = (after: string) =>
    db.select({ id: catalogEvents.id }).from(catalogEvents)
      .where(and(sql`not ${catalogEvents.closed}`, gt(catalogEvents.id, after)))
      .orderBy(asc(catalogEvents.id))
      .limit(PAGE_ROWS);
  for await (const page of pages(openEvents)) {
    for (const e of page) {
      stored.eventIds.add(e.id);
      stored.openEventIds.add(e.id);
    }
  }
  const addMarket = (m: MarketState) => {
    stored.marketEvents.set(m.id, m.eventId);
    stored.resolutionStatus.set(m.id, m.status);
    if (!m.closed) stored.openMarkets.set(m.id, m.eventId);
  };
  const openMarkets = (after: string) =>
    db.select(MARKET_STATE).from(catalogMarkets)
      .where(and(sql`not ${catalogMarkets.closed}`, gt(catalogMarkets.id, after)))
      .orderBy(asc(catalogMarkets.id))
      .limit(PAGE_ROWS);
  for await (const page of pages(openMarkets)) page.forEach(addMarket);
  // The closed markets of open events: an event found closed brings its markets' statuses in the
  // venue's answer, and a resolution is told against the stored one.
  for (const ids of chunks([...stored.openEventIds], IDS_PER_LOOKUP)) {
    (await db.select(MARKET_STATE).from(catalogMarkets).where(and(inArray(catalogMarkets.eventId, ids), sql`${catalogMarkets.closed}`))).forEach(addMarket);
  }

  // What the venue lists that is not among those: new rows, and closed ones it lists again.
  const eventsToFind = fetched.map((e) => e.id).filter((id) => !stored.eventIds.has(id));
  for (const ids of chunks(eventsToFind, IDS_PER_LOOKUP)) {
    for (const e of await db.select({ id: catalogEvents.id }).from(catalogEvents).where(inArray(catalogEvents.id, ids))) stored.eventIds.add(e.id);
  }
  const marketsToFind = fetched.flatMap((e) => e.markets.map((m) => m.id)).filter((id) => !stored.marketEvents.has(id));
  for (const ids of chunks(marketsToFind, IDS_PER_LOOKUP)) {
    (await db.select(MARKET_STATE).from(catalogMarkets).where(inArray(catalogMarkets.id, ids))).forEach(addMarket);
  }
  return stored;
}

/** The rows of a keyset-paged query, a page at a time, ordered by id. */
async function* pages<T extends { id: string }>(page: (after: string) => Promise<T[]>): AsyncGenerator<T[]> {
  let after = '';
  for (;;) {
    const rows = await page(after);
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE_ROWS) return;
    after = rows[rows.length - 1]!.id;
  }
}

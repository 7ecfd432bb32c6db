import type { Database } from '../db/client.js';
import { catalogEvents, catalogMarkets } from '../db/schema/index.js';

export interface StoredCatalog {
  eventIds: Set<string>;
  openEventIds: Set<string>;
  /** Every stored market id → its event id, closed ones too: a market the venue moved is found by it. */
  marketEvents: Map<string, string>;
  /** Open market id → its event id. */
  openMarkets: Map<string, string>;
  /** Market id → its stored umaResolutionStatus. */
  resolutionStatus: Map<string, string>;
}

export async function loadStoredCatalog(database: Database): Promise<StoredCatalog> {
  const db = database.db;
  const events = await db.select({ id: catalogEvents.id, closed: catalogEvents.closed }).from(catalogEvents);
  const markets = await db
    .select({ id: catalogMarkets.id, eventId: catalogMarkets.eventId, closed: catalogMarkets.closed, status: catalogMarkets.umaResolutionStatus })
    .from(catalogMarkets);
  return {
    eventIds: new Set(events.map((e) => e.id)),
    openEventIds: new Set(events.filter((e) => !e.closed).map((e) => e.id)),
    marketEvents: new Map(markets.map((m) => [m.id, m.eventId])),
    openMarkets: new Map(markets.filter((m) => !m.closed).map((m) => [m.id, m.eventId])),
    resolutionStatus: new Map(markets.map((m) => [m.id, m.status])),
  };
}

export const isEmpty = (s: StoredCatalog) => s.eventIds.size === 0;

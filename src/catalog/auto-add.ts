import { and, asc, count, eq, inArray } from 'drizzle-orm';
import type { Database, Tx } from '../db/client.js';
import { catalogMarkets, watchlistEvents, watchlistMarkets, watchlists } from '../db/schema/index.js';
import { fromStoredQuery, matchEventIds } from '../services/search/matcher.js';
import { announceWatchlistChange } from '../services/watchlists/changes.js';

/**
 * Watchlists with `automaticallyAddMatchingEvents` take in the new open events their query matches,
 * with all open markets and autoFetch on. Returns the watchlists changed.
 */
export async function autoAddMatchingEvents(
  database: Database,
  tx: Tx,
  newEventIds: string[],
  maxEventsPerWatchlist: number,
): Promise<Set<string>> {
  const changed = new Set<string>();
  if (newEventIds.length === 0) return changed;
  const candidates = await tx.select().from(watchlists).where(eq(watchlists.automaticallyAddMatchingEvents, true));
  for (const w of candidates) {
    const query = fromStoredQuery(w.query);
    if (!query) continue;
    const matched = await matchEventIds(database, query, { limit: newEventIds.length, within: newEventIds, on: tx });
    const [held] = await tx.select({ n: count() }).from(watchlistEvents).where(eq(watchlistEvents.watchlistId, w.id));
    const room = Math.max(0, maxEventsPerWatchlist - (held?.n ?? 0));
    for (const eventId of matched.slice(0, room)) {
      const added = await tx
        .insert(watchlistEvents)
        .values({ watchlistId: w.id, eventId, autoFetch: true })
        .onConflictDoNothing()
        .returning({ eventId: watchlistEvents.eventId });
      if (added.length === 0) continue;
      const markets = await tx
        .select({ id: catalogMarkets.id })
        .from(catalogMarkets)
        .where(and(eq(catalogMarkets.eventId, eventId), eq(catalogMarkets.closed, false)))
        .orderBy(asc(catalogMarkets.position), asc(catalogMarkets.id));
      if (markets.length > 0) {
        await tx
          .insert(watchlistMarkets)
          .values(markets.map((m, position) => ({ watchlistId: w.id, eventId, marketId: m.id, position })))
          .onConflictDoNothing();
      }
      changed.add(w.id);
    }
  }
  return changed;
}

/** Watchlist events with autoFetch take in the new markets of their event. */
export async function autoFetchNewMarkets(tx: Tx, newMarkets: { eventId: string; marketId: string }[]): Promise<Set<string>> {
  const changed = new Set<string>();
  if (newMarkets.length === 0) return changed;
  const eventIds = [...new Set(newMarkets.map((m) => m.eventId))];
  const holders = await tx
    .select({ watchlistId: watchlistEvents.watchlistId, eventId: watchlistEvents.eventId })
    .from(watchlistEvents)
    .where(and(inArray(watchlistEvents.eventId, eventIds), eq(watchlistEvents.autoFetch, true)));
  if (holders.length === 0) return changed;
  const positions = new Map(
    (
      await tx
        .select({ id: catalogMarkets.id, position: catalogMarkets.position })
        .from(catalogMarkets)
        .where(inArray(catalogMarkets.id, newMarkets.map((m) => m.marketId)))
    ).map((m) => [m.id, m.position]),
  );
  for (const h of holders) {
    const rows = newMarkets
      .filter((m) => m.eventId === h.eventId)
      .map((m) => ({ watchlistId: h.watchlistId, eventId: h.eventId, marketId: m.marketId, position: positions.get(m.marketId) ?? 0 }));
    const added = await tx.insert(watchlistMarkets).values(rows).onConflictDoNothing().returning({ id: watchlistMarkets.marketId });
    if (added.length > 0) changed.add(h.watchlistId);
  }
  return changed;
}

export async function announceAll(tx: Tx, watchlistIds: Iterable<string>): Promise<void> {
  for (const id of watchlistIds) await announceWatchlistChange(tx, id);
}

import { and, eq, inArray } from 'drizzle-orm';
import type { Database, Tx } from '../db/client.js';
import { catalogMarkets, watchlistEvents, watchlistMarkets, watchlists } from '../db/schema/index.js';
import { takeInMatchingEvents } from '../services/watchlists/take-in.js';
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
    if (await takeInMatchingEvents(database, tx, w, maxEventsPerWatchlist, newEventIds)) changed.add(w.id);
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

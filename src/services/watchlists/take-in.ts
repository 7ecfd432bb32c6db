import { and, asc, count, eq } from 'drizzle-orm';
import type { Database, Tx } from '../../db/client.js';
import { catalogMarkets, watchlistEvents, watchlistMarkets, type StoredQuery } from '../../db/schema/index.js';
import { fromStoredQuery, matchEventIds } from '../search/matcher.js';

/** Adds events (with their open markets, autoFetch on) to a watchlist; answers whether any was new. */
export async function takeInEvents(tx: Tx, watchlistId: string, eventIds: readonly string[]): Promise<boolean> {
  let changed = false;
  for (const eventId of eventIds) {
    const added = await tx
      .insert(watchlistEvents)
      .values({ watchlistId, eventId, autoFetch: true })
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
        .values(markets.map((m, position) => ({ watchlistId, eventId, marketId: m.id, position })))
        .onConflictDoNothing();
    }
    changed = true;
  }
  return changed;
}

/**
 * `automaticallyAddMatchingEvents`: the open events the watchlist's query matches, best first,
 * within the room left under the per-watchlist event limit. `within` narrows to given events
 * (the sync passes its new ones).
 */
export async function takeInMatchingEvents(
  database: Database,
  tx: Tx,
  watchlist: { id: string; query: StoredQuery },
  maxEvents: number,
  within?: string[],
): Promise<boolean> {
  const query = fromStoredQuery(watchlist.query);
  if (!query) return false;
  const [held] = await tx.select({ n: count() }).from(watchlistEvents).where(eq(watchlistEvents.watchlistId, watchlist.id));
  const room = maxEvents - (held?.n ?? 0);
  if (room <= 0) return false;
  const matched = await matchEventIds(database, query, { limit: room + (held?.n ?? 0), within, on: tx });
  const present = new Set(
    (await tx.select({ id: watchlistEvents.eventId }).from(watchlistEvents).where(eq(watchlistEvents.watchlistId, watchlist.id))).map((r) => r.id),
  );
  return takeInEvents(tx, watchlist.id, matched.filter((id) => !present.has(id)).slice(0, room));
}

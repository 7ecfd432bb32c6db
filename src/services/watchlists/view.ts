import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { watchlistEvents, watchlistMarkets, watchlists, type StoredQuery } from '../../db/schema/index.js';

export interface WatchlistView {
  id: string;
  name: string;
  query: StoredQuery;
  automaticallyAddMatchingEvents: boolean;
  events: Record<string, { autoFetch: boolean; markets: string[] }>;
  createdAt: Date;
  updatedAt: Date;
}

/** The account's watchlists (or the one asked for) in the spec's shape, newest first. */
export async function loadWatchlistViews(
  on: Queryable,
  accountId: string,
  watchlistId?: string,
): Promise<WatchlistView[]> {
  const rows = await on
    .select()
    .from(watchlists)
    .where(
      watchlistId
        ? and(eq(watchlists.accountId, accountId), eq(watchlists.id, watchlistId))
        : eq(watchlists.accountId, accountId),
    )
    .orderBy(desc(watchlists.createdAt), desc(watchlists.id));
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [events, markets] = await Promise.all([
    on
      .select()
      .from(watchlistEvents)
      .where(inArray(watchlistEvents.watchlistId, ids))
      .orderBy(asc(watchlistEvents.addedAt), asc(watchlistEvents.eventId)),
    on
      .select()
      .from(watchlistMarkets)
      .where(inArray(watchlistMarkets.watchlistId, ids))
      .orderBy(asc(watchlistMarkets.position), asc(watchlistMarkets.marketId)),
  ]);
  const byWatchlist = new Map<string, WatchlistView['events']>(ids.map((id) => [id, {}]));
  for (const e of events) byWatchlist.get(e.watchlistId)![e.eventId] = { autoFetch: e.autoFetch, markets: [] };
  for (const m of markets) byWatchlist.get(m.watchlistId)?.[m.eventId]?.markets.push(m.marketId);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    query: r.query,
    automaticallyAddMatchingEvents: r.automaticallyAddMatchingEvents,
    events: byWatchlist.get(r.id)!,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }));
}

export async function loadWatchlistView(on: Queryable, accountId: string, watchlistId: string) {
  const [view] = await loadWatchlistViews(on, accountId, watchlistId);
  return view;
}

import { asc, inArray } from 'drizzle-orm';
import { catalogEvents, catalogMarkets } from '../../db/schema/index.js';
import { dbOf, type ServiceContext } from '../context.js';
import { parseInput } from '../validate.js';
import { findWatchlistByRef } from './by-ref.js';
import { WatchlistRefInput } from './schemas.js';
import type { WatchlistView } from './view.js';

export interface WatchedEvent {
  id: string;
  /** Undefined when the catalog no longer holds the event. */
  title?: string;
  /** The markets the watchlist follows on this event (every market when it follows the whole event). */
  markets: { id: string; question: string }[];
}

/** Chat's "watchlist show": one watchlist with its events' titles and their markets' questions, in watch order. */
export async function findWatchlistContents({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: WatchlistRefInput;
}): Promise<{ watchlist: WatchlistView; events: WatchedEvent[] }> {
  const watchlist = await findWatchlistByRef({ ctx, input: parseInput(WatchlistRefInput, input) });
  const ids = Object.keys(watchlist.events);
  if (ids.length === 0) return { watchlist, events: [] };
  const db = dbOf(ctx);
  const [titles, markets] = await Promise.all([
    db.select({ id: catalogEvents.id, title: catalogEvents.title }).from(catalogEvents).where(inArray(catalogEvents.id, ids)),
    db
      .select({ id: catalogMarkets.id, eventId: catalogMarkets.eventId, question: catalogMarkets.question })
      .from(catalogMarkets)
      .where(inArray(catalogMarkets.eventId, ids))
      .orderBy(asc(catalogMarkets.eventId), asc(catalogMarkets.id)),
  ]);
  const titleOf = new Map(titles.map((t) => [t.id, t.title]));
  const events = ids.map((id) => {
    const chosen = watchlist.events[id]!.markets;
    const title = titleOf.get(id);
    return {
      id,
      ...(title !== undefined ? { title } : {}),
      markets: markets.filter((m) => m.eventId === id && (chosen.length === 0 || chosen.includes(m.id))).map(({ id: mid, question }) => ({ id: mid, question })),
    };
  });
  return { watchlist, events };
}

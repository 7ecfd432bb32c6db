import { and, asc, count, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { catalogEvents, catalogMarkets, watchlistEvents, watchlistMarkets } from '../../db/schema/index.js';
import { limitExceeded, validationError } from '../errors.js';

export interface Selection {
  autoFetch: boolean;
  markets?: string[];
}

/**
 * Puts one event into a watchlist (replacing its previous selection). The event and its markets
 * must exist in the catalog; without a market list, every market of the event is taken. Answers
 * the markets the previous selection held and this one does not.
 */
export async function putEventSelection(
  tx: Tx,
  watchlistId: string,
  eventId: string,
  selection: Selection,
  maxEvents: number,
): Promise<string[]> {
  const [event] = await tx.select({ id: catalogEvents.id }).from(catalogEvents).where(eq(catalogEvents.id, eventId));
  if (!event) throw validationError(`events.${eventId}: no such event in the catalog`);

  const eventMarkets = await tx
    .select({ id: catalogMarkets.id })
    .from(catalogMarkets)
    .where(eq(catalogMarkets.eventId, eventId))
    .orderBy(asc(catalogMarkets.position), asc(catalogMarkets.id));
  const known = new Set(eventMarkets.map((m) => m.id));
  const chosen = selection.markets ? [...new Set(selection.markets)] : eventMarkets.map((m) => m.id);
  const stranger = chosen.find((id) => !known.has(id));
  if (stranger !== undefined) {
    throw validationError(`events.${eventId}.markets: market ${stranger} is not a market of event ${eventId}`);
  }

  const [existing] = await tx
    .select({ n: count() })
    .from(watchlistEvents)
    .where(and(eq(watchlistEvents.watchlistId, watchlistId), eq(watchlistEvents.eventId, eventId)));
  if (!existing?.n) {
    const [total] = await tx.select({ n: count() }).from(watchlistEvents).where(eq(watchlistEvents.watchlistId, watchlistId));
    if ((total?.n ?? 0) >= maxEvents) {
      throw limitExceeded(`Event limit reached: a watchlist holds at most ${maxEvents} events (MAX_EVENTS_PER_WATCHLIST)`, 'watchlist event', maxEvents);
    }
  }

  await tx
    .insert(watchlistEvents)
    .values({ watchlistId, eventId, autoFetch: selection.autoFetch })
    .onConflictDoUpdate({
      target: [watchlistEvents.watchlistId, watchlistEvents.eventId],
      set: { autoFetch: selection.autoFetch },
    });
  const previous = await tx
    .delete(watchlistMarkets)
    .where(and(eq(watchlistMarkets.watchlistId, watchlistId), eq(watchlistMarkets.eventId, eventId)))
    .returning({ marketId: watchlistMarkets.marketId });
  if (chosen.length > 0) {
    await tx
      .insert(watchlistMarkets)
      .values(chosen.map((marketId, position) => ({ watchlistId, eventId, marketId, position })));
  }
  const kept = new Set(chosen);
  return previous.map((p) => p.marketId).filter((id) => !kept.has(id));
}

export async function removeEventSelection(tx: Tx, watchlistId: string, eventId: string): Promise<boolean> {
  await tx
    .delete(watchlistMarkets)
    .where(and(eq(watchlistMarkets.watchlistId, watchlistId), eq(watchlistMarkets.eventId, eventId)));
  const removed = await tx
    .delete(watchlistEvents)
    .where(and(eq(watchlistEvents.watchlistId, watchlistId), eq(watchlistEvents.eventId, eventId)))
    .returning({ id: watchlistEvents.eventId });
  return removed.length > 0;
}

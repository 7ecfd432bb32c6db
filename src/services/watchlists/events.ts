import { eq } from 'drizzle-orm';
import { catalogEvents, watchlists } from '../../db/schema/index.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { parseInput } from '../validate.js';
import { announceWatchlistChange } from './changes.js';
import { pauseDroppedSubscriptions } from './dropped-subscriptions.js';
import { putEventSelection, removeEventSelection } from './event-selection.js';
import { requireOwnedWatchlist } from './owned.js';
import { EventSelection, WatchlistEventInput } from './schemas.js';
import { loadWatchlistView, type WatchlistView } from './view.js';

type Target = WatchlistEventInput;

/**
 * `PUT /watchlists/{id}/events/{eventId}`: adds the event, or replaces its selection; Market-scope
 * subscriptions on markets the new selection drops are paused.
 */
export async function putWatchlistEvent({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: Target & { body: EventSelection | undefined };
}): Promise<WatchlistView> {
  const { watchlistId, eventId } = parseInput(WatchlistEventInput, input);
  // No body at all means the defaults; an explicit JSON null is a bad body.
  const selection = parseInput(EventSelection, input.body === undefined ? {} : input.body);
  return withTransaction(ctx, async (tx) => {
    await requireOwnedWatchlist(tx, ctx.account.id, watchlistId);
    // The event is the addressed resource here (a path segment), so its absence is a 404, not a bad body.
    const [event] = await tx.select({ id: catalogEvents.id }).from(catalogEvents).where(eq(catalogEvents.id, eventId));
    if (!event) throw notFound(`Event ${eventId} is not in the catalog`, 'event');
    const dropped = await putEventSelection(tx, watchlistId, eventId, selection, ctx.config.MAX_EVENTS_PER_WATCHLIST);
    await pauseDroppedSubscriptions(tx, watchlistId, eventId, dropped);
    await tx.update(watchlists).set({ updatedAt: new Date() }).where(eq(watchlists.id, watchlistId));
    await announceWatchlistChange(tx, watchlistId);
    return (await loadWatchlistView(tx, ctx.account.id, watchlistId))!;
  });
}

/** `DELETE /watchlists/{id}/events/{eventId}`: the event's Event- and Market-scope subscriptions are paused. */
export async function removeWatchlistEvent({ ctx, input }: { ctx: ServiceContext; input: Target }): Promise<WatchlistView> {
  const { watchlistId, eventId } = parseInput(WatchlistEventInput, input);
  return withTransaction(ctx, async (tx) => {
    await requireOwnedWatchlist(tx, ctx.account.id, watchlistId);
    if (!(await removeEventSelection(tx, watchlistId, eventId))) {
      throw notFound(`Event ${eventId} is not in this watchlist`, 'watchlist event');
    }
    await pauseDroppedSubscriptions(tx, watchlistId, eventId);
    await tx.update(watchlists).set({ updatedAt: new Date() }).where(eq(watchlists.id, watchlistId));
    await announceWatchlistChange(tx, watchlistId);
    return (await loadWatchlistView(tx, ctx.account.id, watchlistId))!;
  });
}

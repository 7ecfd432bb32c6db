import { withTransaction, type ServiceContext } from '../context.js';
import { findEvent, type EventRef } from '../search/lookup.js';
import { parseInput } from '../validate.js';
import { findWatchlistByRef } from './by-ref.js';
import { findOrCreateDefaultWatchlist } from './default-watchlist.js';
import { putWatchlistEvent } from './events.js';
import { WatchEventInput } from './schemas.js';
import type { WatchlistView } from './view.js';

/** Chat's "watch": the event (by link, slug or id) into the watchlist named, or the default one; all or nothing. */
export async function watchEvent({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: WatchEventInput;
}): Promise<{ event: EventRef; watchlist: WatchlistView }> {
  const body = parseInput(WatchEventInput, input);
  return withTransaction(ctx, async (_tx, txCtx) => {
    const event = await findEvent({ ctx: txCtx, input: { ref: body.event } });
    const target = body.watchlist
      ? await findWatchlistByRef({ ctx: txCtx, input: { watchlist: body.watchlist } })
      : await findOrCreateDefaultWatchlist({ ctx: txCtx });
    const watchlist = await putWatchlistEvent({ ctx: txCtx, input: { watchlistId: target.id, eventId: event.id, body: undefined } });
    return { event, watchlist };
  });
}

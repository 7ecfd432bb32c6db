import { withTransaction, type ServiceContext } from '../context.js';
import { findEvent, type EventRef } from '../search/lookup.js';
import { parseInput } from '../validate.js';
import { removeWatchlistEvent } from './events.js';
import { listWatchlists } from './read.js';
import { UnwatchEventInput } from './schemas.js';
import type { WatchlistView } from './view.js';

/** Chat's "unwatch": the event leaves every watchlist of the caller that holds it (none is not an error). */
export async function unwatchEvent({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: UnwatchEventInput;
}): Promise<{ event: EventRef; watchlists: WatchlistView[] }> {
  const body = parseInput(UnwatchEventInput, input);
  return withTransaction(ctx, async (_tx, txCtx) => {
    const event = await findEvent({ ctx: txCtx, input: { ref: body.event } });
    const holding = (await listWatchlists({ ctx: txCtx, input: {} })).filter((w) => event.id in w.events);
    const removedFrom: WatchlistView[] = [];
    for (const w of holding) removedFrom.push(await removeWatchlistEvent({ ctx: txCtx, input: { watchlistId: w.id, eventId: event.id } }));
    return { event, watchlists: removedFrom };
  });
}

import { and, count, eq, inArray, or } from 'drizzle-orm';
import { subscriptions } from '../../db/schema/index.js';
import { dbOf, type ServiceContext } from '../context.js';
import { findEvent, type EventRef } from '../search/lookup.js';
import { parseInput } from '../validate.js';
import { findWatchlistByRef } from './by-ref.js';
import { droppedSubscriptions } from './dropped-subscriptions.js';
import { listWatchlists } from './read.js';
import { UnwatchEventInput, WatchlistRefInput } from './schemas.js';
import type { WatchlistView } from './view.js';

// What a removal would take away, counted before anything changes: chat asks "Delete …? 3 events
// and 7 alerts go with it" and removes only on Confirm. Nothing here writes.

/** "watchlist delete": the watchlist, how many events it holds and how many alerts go with it. */
export async function countWatchlistDelete({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: WatchlistRefInput;
}): Promise<{ watchlist: WatchlistView; events: number; alerts: number }> {
  const watchlist = await findWatchlistByRef({ ctx, input: parseInput(WatchlistRefInput, input) });
  const [row] = await dbOf(ctx)
    .select({ n: count() })
    .from(subscriptions)
    .where(and(eq(subscriptions.accountId, ctx.account.id), eq(subscriptions.watchlistId, watchlist.id)));
  return { watchlist, events: Object.keys(watchlist.events).length, alerts: row?.n ?? 0 };
}

/** "unwatch": the event, the watchlists it would leave, and how many active alerts would be paused. */
export async function countUnwatch({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: UnwatchEventInput;
}): Promise<{ event: EventRef; watchlists: WatchlistView[]; alertsPaused: number }> {
  const body = parseInput(UnwatchEventInput, input);
  const event = await findEvent({ ctx, input: { ref: body.event } });
  const holding = (await listWatchlists({ ctx, input: {} })).filter((w) => event.id in w.events);
  if (holding.length === 0) return { event, watchlists: [], alertsPaused: 0 };
  const [row] = await dbOf(ctx)
    .select({ n: count() })
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.accountId, ctx.account.id),
        inArray(subscriptions.watchlistId, holding.map((w) => w.id)),
        or(...holding.map((w) => droppedSubscriptions(w.id, event.id))),
      ),
    );
  return { event, watchlists: holding, alertsPaused: row?.n ?? 0 };
}

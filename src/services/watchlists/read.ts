import { dbOf, type ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { parseInput } from '../validate.js';
import { WATCHLIST_NOT_FOUND } from './owned.js';
import { WatchlistIdInput } from './schemas.js';
import { loadWatchlistViews, type WatchlistView } from './view.js';

/** All of the caller's watchlists, or the one named (404 when it is not theirs). */
export async function listWatchlists({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { watchlistId?: string };
}): Promise<WatchlistView[]> {
  if (input.watchlistId === undefined) return loadWatchlistViews(dbOf(ctx), ctx.account.id);
  const { watchlistId } = parseInput(WatchlistIdInput, input);
  const views = await loadWatchlistViews(dbOf(ctx), ctx.account.id, watchlistId);
  if (views.length === 0) throw notFound(WATCHLIST_NOT_FOUND, 'watchlist');
  return views;
}

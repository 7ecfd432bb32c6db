import type { ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { parseInput } from '../validate.js';
import { WATCHLIST_NOT_FOUND } from './owned.js';
import { listWatchlists } from './read.js';
import { WatchlistRefInput } from './schemas.js';
import type { WatchlistView } from './view.js';

/** The caller's watchlist by id, or by name without regard to case (how people name them in chat). */
export async function findWatchlistByRef({ ctx, input }: { ctx: ServiceContext; input: WatchlistRefInput }): Promise<WatchlistView> {
  const { watchlist: ref } = parseInput(WatchlistRefInput, input);
  const all = await listWatchlists({ ctx, input: {} });
  const lower = ref.toLowerCase();
  const found = all.find((w) => w.id === ref) ?? all.find((w) => w.name.toLowerCase() === lower);
  if (!found) throw notFound(WATCHLIST_NOT_FOUND, 'watchlist');
  return found;
}

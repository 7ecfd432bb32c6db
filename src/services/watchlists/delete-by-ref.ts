import { withTransaction, type ServiceContext } from '../context.js';
import { parseInput } from '../validate.js';
import { findWatchlistByRef } from './by-ref.js';
import { deleteWatchlist } from './delete.js';
import { WatchlistRefInput } from './schemas.js';
import type { WatchlistView } from './view.js';

/** Chat's "watchlist delete": by id or name; answers the watchlist as it was, its alerts gone with it. */
export async function deleteWatchlistByRef({ ctx, input }: { ctx: ServiceContext; input: WatchlistRefInput }): Promise<WatchlistView> {
  const body = parseInput(WatchlistRefInput, input);
  return withTransaction(ctx, async (_tx, txCtx) => {
    const found = await findWatchlistByRef({ ctx: txCtx, input: body });
    await deleteWatchlist({ ctx: txCtx, input: { watchListId: found.id } });
    return found;
  });
}

import { withTransaction, type ServiceContext } from '../context.js';
import { parseInput } from '../validate.js';
import { findWatchlistByRef } from './by-ref.js';
import { RenameWatchlistByRefInput } from './schemas.js';
import { updateWatchlist } from './update.js';
import type { WatchlistView } from './view.js';

/** Chat's "watchlist rename": the watchlist by id or name gets the new name (checked as REST checks it). */
export async function renameWatchlistByRef({ ctx, input }: { ctx: ServiceContext; input: RenameWatchlistByRefInput }): Promise<WatchlistView> {
  const body = parseInput(RenameWatchlistByRefInput, input);
  return withTransaction(ctx, async (_tx, txCtx) => {
    const found = await findWatchlistByRef({ ctx: txCtx, input: { watchlist: body.watchlist } });
    return updateWatchlist({ ctx: txCtx, input: { watchlistId: found.id, body: { name: body.name } } });
  });
}

import { eq } from 'drizzle-orm';
import { accounts } from '../../db/schema/index.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { createWatchlist } from './create.js';
import { listWatchlists } from './read.js';
import type { WatchlistView } from './view.js';

export const DEFAULT_WATCHLIST_NAME = 'My watchlist';

/**
 * Where chat puts an event when no watchlist is named: "My watchlist", else the oldest one, else a new
 * "My watchlist". The account row is locked so two first commands at once make one watchlist, not two.
 */
export async function findOrCreateDefaultWatchlist({ ctx }: { ctx: ServiceContext }): Promise<WatchlistView> {
  return withTransaction(ctx, async (tx, txCtx) => {
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, ctx.account.id)).for('update');
    const all = await listWatchlists({ ctx: txCtx, input: {} });
    const named = all.find((w) => w.name === DEFAULT_WATCHLIST_NAME);
    if (named) return named;
    if (all.length > 0) return all[all.length - 1]!; // newest first: the last is the oldest
    return createWatchlist({ ctx: txCtx, input: { name: DEFAULT_WATCHLIST_NAME } });
  });
}

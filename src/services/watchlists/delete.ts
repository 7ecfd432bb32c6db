import { and, eq } from 'drizzle-orm';
import { subscriptions, watchlists } from '../../db/schema/index.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { notFound, validationError } from '../errors.js';
import { announceSubscriptionChange, announceWatchlistChange } from './changes.js';
import { WATCHLIST_NOT_FOUND } from './owned.js';
import { DeleteWatchlistInput } from './schemas.js';

/** `POST /watchlists/delete`: permanent; the watchlist's subscriptions go with it. */
export async function deleteWatchlist({ ctx, input }: { ctx: ServiceContext; input: DeleteWatchlistInput }): Promise<void> {
  const parsed = DeleteWatchlistInput.safeParse(input);
  if (!parsed.success) throw validationError('Invalid request body');
  const { watchListId } = parsed.data;
  await withTransaction(ctx, async (tx) => {
    const subs = await tx
      .select({ id: subscriptions.id })
      .from(subscriptions)
      .where(and(eq(subscriptions.watchlistId, watchListId), eq(subscriptions.accountId, ctx.account.id)));
    const deleted = await tx
      .delete(watchlists)
      .where(and(eq(watchlists.id, watchListId), eq(watchlists.accountId, ctx.account.id)))
      .returning({ id: watchlists.id });
    if (deleted.length === 0) throw notFound(WATCHLIST_NOT_FOUND, 'watchlist');
    for (const sub of subs) await announceSubscriptionChange(tx, sub.id);
    await announceWatchlistChange(tx, watchListId);
  });
}

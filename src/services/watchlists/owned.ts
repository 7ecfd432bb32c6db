import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { watchlists } from '../../db/schema/index.js';
import { notFound } from '../errors.js';

export const WATCHLIST_NOT_FOUND = 'Watchlist not found or already deleted';

/** The caller's watchlist row, locked for update inside a transaction; another account's is "not found". */
export async function requireOwnedWatchlist(on: Queryable, accountId: string, watchlistId: string) {
  const [row] = await on
    .select()
    .from(watchlists)
    .where(and(eq(watchlists.id, watchlistId), eq(watchlists.accountId, accountId)))
    .for('update');
  if (!row) throw notFound(WATCHLIST_NOT_FOUND, 'watchlist');
  return row;
}

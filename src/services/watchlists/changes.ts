import { notifyChange, type Queryable } from '../../db/client.js';
import { SUBSCRIPTION_CHANGED, WATCHLIST_CHANGED } from '../../db/coordination.js';

export const announceWatchlistChange = (on: Queryable, watchlistId: string) =>
  notifyChange(on, WATCHLIST_CHANGED, watchlistId);

export const announceSubscriptionChange = (on: Queryable, subscriptionId: string) =>
  notifyChange(on, SUBSCRIPTION_CHANGED, subscriptionId);

import { notifyChange, type Queryable } from '../../db/client.js';

// Change-feed channels: ids only, delivered on commit, followed by the engine.
export const WATCHLIST_CHANGED = 'watchlist_changed';
export const SUBSCRIPTION_CHANGED = 'subscription_changed';

export const announceWatchlistChange = (on: Queryable, watchlistId: string) =>
  notifyChange(on, WATCHLIST_CHANGED, watchlistId);

export const announceSubscriptionChange = (on: Queryable, subscriptionId: string) =>
  notifyChange(on, SUBSCRIPTION_CHANGED, subscriptionId);

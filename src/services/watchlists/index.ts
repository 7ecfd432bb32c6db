export { createWatchlist } from './create.js';
export { deleteWatchlist } from './delete.js';
export { putWatchlistEvent, removeWatchlistEvent } from './events.js';
export { listWatchlists } from './read.js';
export { updateWatchlist, updateWatchlistKeyphrases, updateWatchlistTags } from './update.js';
export { requireOwnedWatchlist, WATCHLIST_NOT_FOUND } from './owned.js';
export { announceSubscriptionChange, announceWatchlistChange, SUBSCRIPTION_CHANGED, WATCHLIST_CHANGED } from './changes.js';
export * from './schemas.js';
export type { WatchlistView } from './view.js';

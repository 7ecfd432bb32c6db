export { createSubscription } from './create.js';
export { createMarketAlert } from './create-market-alert.js';
export { deleteSubscription } from './delete.js';
export { getSubscription, listSubscriptions } from './read.js';
export { pauseSubscription, restartSubscription } from './status.js';
export { updateSubscription } from './update.js';
export * from './schemas.js';
export type { SubscriptionView } from './view.js';
export { enableChannel, getChannelHealth } from './channel-health.js';

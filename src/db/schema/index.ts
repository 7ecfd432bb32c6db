export * from './accounts.js';
export * from './catalog.js';
export * from './watchlists.js';
export * from './subscriptions.js';
export * from './notifications.js';

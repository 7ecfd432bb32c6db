export { syncCatalogOnce } from './sync.js';
export { startCatalogSync, syncUnderLock, SYNC_LOCK } from './loop.js';

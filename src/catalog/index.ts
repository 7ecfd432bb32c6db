export { syncCatalogOnce, type SyncDeps, type SyncReport } from './sync.js';
export { startCatalogSync, syncUnderLock, SYNC_LOCK, type CatalogSync } from './loop.js';

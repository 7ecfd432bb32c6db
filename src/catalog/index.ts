export { syncCatalogOnce, type SyncDeps, type SyncReport } from './sync.js';
export { startCatalogSync, syncUnderLock, type CatalogSync } from './loop.js';
export { SYNC_LOCK } from '../db/coordination.js';

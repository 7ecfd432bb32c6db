export { syncCatalogOnce } from './sync.js';
export { startCatalogSync, syncUnderLock } from './loop.js';
export { SYNC_LOCK } from '../db/coordination.js';

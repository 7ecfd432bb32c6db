import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../logger.js';
import { createGammaClient } from '../venue/gamma/client.js';
import { startCatalogSync } from './loop.js';
import type { SyncReport } from './sync.js';

const GAMMA_TIMEOUT_MS = 15_000;

export interface SyncRole {
  syncOnce(): Promise<SyncReport>;
  stop(): Promise<void>;
}

/** The `sync` role: the catalog sync loop against the venue's catalog API at `gammaUrl`. */
export function startSyncRole(deps: { config: Config; database: Database; logger: Logger; gammaUrl: string }): SyncRole {
  const logger = deps.logger.child({ component: 'catalog-sync' });
  // Stopping aborts the pass's venue requests and their retries: a stop never waits on the venue.
  const venueRequests = new AbortController();
  const gamma = createGammaClient({ baseUrl: deps.gammaUrl, logger, timeoutMs: GAMMA_TIMEOUT_MS, signal: venueRequests.signal });
  const sync = startCatalogSync({
    database: deps.database,
    gamma,
    logger,
    intervalMs: deps.config.SYNC_INTERVAL_MS,
    maxEventsPerWatchlist: deps.config.MAX_EVENTS_PER_WATCHLIST,
  });
  return {
    syncOnce: sync.syncOnce,
    async stop() {
      venueRequests.abort(new Error('catalog sync stopping'));
      await sync.stop();
    },
  };
}

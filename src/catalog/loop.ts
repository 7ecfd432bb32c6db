import { syncCatalogOnce, type SyncDeps, type SyncReport } from './sync.js';

// Advisory-lock key of the sync leader: one process in a deployment syncs at a time.
export const SYNC_LOCK = 0x0dd5_0001;

export interface CatalogSync {
  /** One pass now, serialized with the timer's passes. */
  syncOnce(): Promise<SyncReport>;
  stop(): Promise<void>;
}

/**
 * Syncs every `intervalMs` while this process holds the leader lock; a process that does not
 * get it retries at the next tick, so another takes over when the leader stops.
 */
export function startCatalogSync(deps: SyncDeps & { intervalMs: number }): CatalogSync {
  const { database, logger, intervalMs } = deps;
  let lock: { release(): Promise<void> } | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const serialized = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = running.then(fn, fn);
    running = next.catch(() => {});
    return next;
  };

  async function tick() {
    if (stopped) return;
    try {
      lock ??= await database.tryAdvisoryLock(SYNC_LOCK);
      if (lock) await serialized(() => syncCatalogOnce(deps));
    } catch (err) {
      logger.error({ err }, 'catalog sync failed; retried at the next interval');
    } finally {
      if (!stopped) timer = setTimeout(() => void tick(), intervalMs);
    }
  }
  timer = setTimeout(() => void tick(), 0);

  return {
    syncOnce: () => serialized(() => syncCatalogOnce(deps)),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      await lock?.release();
      lock = undefined;
    },
  };
}

import type { Database } from '../db/client.js';
import { SYNC_LOCK } from '../db/coordination.js';
import { recordSyncFailure, recordSyncSuccess } from './sync-status.js';
import { syncCatalogOnce, type SyncDeps, type SyncReport } from './sync.js';

export interface CatalogSync {
  /** One pass now: waits for a pass running anywhere, then runs. */
  syncOnce(): Promise<SyncReport>;
  stop(): Promise<void>;
}

/** One pass under the sync lock, waiting for it (CLI, admin endpoint). */
export const syncUnderLock = (deps: SyncDeps) => deps.database.withAdvisoryLock(SYNC_LOCK, () => syncCatalogOnce(deps));

/**
 * Every `intervalMs`, a pass by whichever process takes the sync lock first (the leader of that
 * tick); the others skip the tick. The lock is held for the pass only, so a stopped leader is
 * replaced at the next tick and `syncOnce` never waits on an idle leader.
 */
export function startCatalogSync(deps: SyncDeps & { intervalMs: number }): CatalogSync {
  const { database, logger, intervalMs } = deps;
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
      const report = await serialized(() => passIfLeader(database, deps));
      // Only the leader that ran the pass speaks for the sync's health.
      if (report) await recordSyncSuccess(database);
    } catch (err) {
      // A pass cut short by the stop is no failure of the sync.
      if (stopped) return;
      logger.error({ err }, 'catalog sync failed; retried at the next interval');
      await recordSyncFailure(database, err instanceof Error ? err.message : String(err)).catch((error: unknown) =>
        logger.warn({ err: error }, 'recording the catalog sync failure failed'),
      );
    } finally {
      if (!stopped) timer = setTimeout(() => void tick(), intervalMs);
    }
  }
  timer = setTimeout(() => void tick(), 0);

  return {
    syncOnce: () => serialized(() => syncUnderLock(deps)),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

async function passIfLeader(database: Database, deps: SyncDeps): Promise<SyncReport | undefined> {
  const lock = await database.tryAdvisoryLock(SYNC_LOCK);
  if (!lock) return undefined;
  try {
    return await syncCatalogOnce(deps);
  } finally {
    await lock.release();
  }
}

import { sql } from 'drizzle-orm';
import type { Logger } from '../logger.js';
import type { Database } from './client.js';
import { startPeriodic } from './periodic.js';

/**
 * PGlite is PostgreSQL in single-user mode, which never checkpoints on its own: no checkpointer on
 * a timer, and `max_wal_size` requests one only under a postmaster. Between starts the WAL then
 * grows without end (disk), and a process that stops without closing the database (a crash, a
 * kill) replays all of it at the next start: ~3.7 s after 486 MB here, and it grows with uptime
 * (docs/PERFORMANCE.md "PGlite never checkpoints"). This runs the checkpoints a server would.
 */
export interface CheckpointOptions {
  logger: Logger;
  /** How often the WAL written since the last checkpoint is read (ms). */
  checkEveryMs?: number;
  /** A checkpoint once this much WAL is past the last one (bytes): bounds a crash's replay. */
  walBytes?: number;
  /** And at least this often while anything was written (ms), PostgreSQL's `checkpoint_timeout`. */
  maxIntervalMs?: number;
}

export const CHECKPOINT_WAL_BYTES = 32 * 1024 * 1024;
const CHECKPOINT_MAX_INTERVAL_MS = 5 * 60_000;
// A checkpoint record alone writes ~100 bytes: less than this since the last one means nothing was.
const IDLE_WAL_BYTES = 64 * 1024;

export function startCheckpoints(database: Database, options: CheckpointOptions): { stop(): Promise<void> } {
  const { logger, checkEveryMs = 30_000, walBytes = CHECKPOINT_WAL_BYTES, maxIntervalMs = CHECKPOINT_MAX_INTERVAL_MS } = options;
  let last = Date.now();
  const check = async () => {
    const [row] = await database.rows<{ pending: string }>(sql`select (pg_current_wal_lsn() - redo_lsn)::text as pending from pg_control_checkpoint()`);
    const pending = Number(row!.pending);
    if (pending < walBytes && (pending < IDLE_WAL_BYTES || Date.now() - last < maxIntervalMs)) return;
    const started = performance.now();
    // It writes out the dirty buffers (at most shared_buffers, 16 MB) while it holds the one connection.
    await database.rows(sql`checkpoint`);
    last = Date.now();
    logger.debug({ walBytes: pending, ms: Math.round(performance.now() - started) }, 'pglite checkpoint');
  };
  return startPeriodic(check, checkEveryMs, (err) => logger.warn({ err }, 'pglite checkpoint failed'));
}

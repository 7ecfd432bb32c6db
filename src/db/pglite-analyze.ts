import { sql } from 'drizzle-orm';
import type { Logger } from '../logger.js';
import type { Database } from './client.js';
import { startPeriodic } from './periodic.js';

/**
 * PGlite has no autovacuum, so nothing ever analyzes a table: the planner goes on estimating from
 * whatever size it last knew, and a named statement keeps the generic plan it made while the table
 * was small (a scan of a table that was a few pages then) for the life of the process, as the
 * inbox and the deliveries grow (docs/PERFORMANCE.md "Plans that outlive the table sizes they were
 * made for"). This applies PostgreSQL's own autoanalyze rule; an ANALYZE also invalidates the plans
 * that read the table, so they are made again for its size now.
 */
export interface AnalyzeOptions {
  logger: Logger;
  /** How often the tables' changes are read (ms). */
  checkEveryMs?: number;
  /** See MIN_ANALYZE_INTERVAL_MS. */
  minIntervalMs?: number;
}

/**
 * A table analyzed at most this often (ms). Unlike autovacuum's, this ANALYZE holds the service's
 * one connection while it samples (tens of ms for the catalog), and the catalog's tables change past
 * the rule on every sync pass: without a floor they would be analyzed every check.
 */
export const MIN_ANALYZE_INTERVAL_MS = 5 * 60_000;

/** autovacuum_analyze_threshold and autovacuum_analyze_scale_factor, PostgreSQL's defaults. */
const THRESHOLD_ROWS = 50;
const SCALE_FACTOR = 0.1;

/**
 * Analyzes each table changed past the autoanalyze rule since its last analyze, and not analyzed in
 * the last `minIntervalMs`; answers their names.
 */
export async function analyzeChangedTables(database: Database, minIntervalMs = MIN_ANALYZE_INTERVAL_MS, logger?: Logger): Promise<string[]> {
  // This session's counts are reported when idle, at most once a second: now, before they are read.
  await database.rows(sql`select pg_stat_force_next_flush()`);
  await database.rows(sql`select pg_stat_clear_snapshot()`);
  const due = await database.rows<{ name: string; statement: string }>(sql`
    select s.relname as name, format('analyze %I.%I', s.schemaname, s.relname) as statement
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.n_mod_since_analyze > ${THRESHOLD_ROWS} + ${SCALE_FACTOR} * greatest(c.reltuples, 0)
      and (s.last_analyze is null or s.last_analyze < now() - ${minIntervalMs}::int * interval '1 millisecond')
    order by s.relname`);
  // Names quoted by format's %I, from the catalog. A table can be gone by now (a day partition of
  // the samples dropped meanwhile): the rest are analyzed all the same.
  const analyzed: string[] = [];
  for (const table of due) {
    const done = await database.rows(sql.raw(table.statement)).then(
      () => true,
      (err: unknown) => (logger?.warn({ err, table: table.name }, 'pglite analyze of a table failed'), false),
    );
    if (done) analyzed.push(table.name);
  }
  return analyzed;
}

export function startAnalyze(database: Database, options: AnalyzeOptions): { stop(): Promise<void> } {
  const { logger, checkEveryMs = 30_000, minIntervalMs = MIN_ANALYZE_INTERVAL_MS } = options;
  const pass = async () => {
    const started = performance.now();
    const tables = await analyzeChangedTables(database, minIntervalMs, logger);
    if (tables.length > 0) logger.debug({ tables, ms: Math.round(performance.now() - started) }, 'pglite analyze');
  };
  return startPeriodic(pass, checkEveryMs, (err) => logger.warn({ err }, 'pglite analyze failed'));
}

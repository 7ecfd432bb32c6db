import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { syncCatalogOnce } from '../src/catalog/index.js';
import type { PGlite } from '@electric-sql/pglite';
import { migrate, openDatabase } from '../src/db/index.js';
import { openPgliteFolder } from '../src/db/pglite-folder.js';
import { createLogger } from '../src/logger.js';
import { createSimulator } from '../src/simulator/index.js';
import { createGammaClient } from '../src/venue/gamma/client.js';
import { fmt, machine, printTable } from './support.js';

const silent = createLogger('silent');

interface Holds {
  /** The longest the pass kept PGlite's connection in one go (a transaction or a lone statement), ms. */
  longestMs: number;
  count: number;
}

/**
 * Times every transaction and lone statement PGlite runs: its one connection is held for each, and
 * every other query of the process (the engine's firing writes, the API, the delivery worker)
 * waits for it. PGlite also answers without a turn of the event loop, so while a transaction runs
 * the process serves nothing else at all.
 */
function timeHolds(pg: PGlite): { measure: () => Holds; reset: () => void } {
  let holds: Holds = { longestMs: 0, count: 0 };
  const timed = <A extends unknown[], R>(run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const started = performance.now();
      try {
        return await run(...args);
      } finally {
        holds.longestMs = Math.max(holds.longestMs, performance.now() - started);
        holds.count++;
      }
    };
  pg.transaction = timed(pg.transaction.bind(pg)) as PGlite['transaction'];
  pg.query = timed(pg.query.bind(pg)) as PGlite['query'];
  return { measure: () => holds, reset: () => void (holds = { longestMs: 0, count: 0 }) };
}

async function timedPass(pass: () => Promise<unknown>, holds: ReturnType<typeof timeHolds>) {
  holds.reset();
  const started = performance.now();
  await pass();
  return { passMs: performance.now() - started, ...holds.measure() };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const CLOSED_PER_EVENT = 4;

/**
 * The catalog of months of use: events and markets the venue closed long ago, which stay stored
 * for good (rules, changes and history point at them), written straight into the tables.
 */
async function storeClosedHistory(database: Awaited<ReturnType<typeof openDatabase>>, markets: number): Promise<void> {
  const events = Math.ceil(markets / CLOSED_PER_EVENT);
  await database.rows(sql`insert into catalog_events (id, slug, title, closed, closed_at)
    select 'old-' || i, 'old-' || i, 'Closed event ' || i, true, now() from generate_series(1, ${events}) i`);
  await database.rows(sql`insert into catalog_markets (id, event_id, position, question, outcomes, outcome_prices, clob_token_ids, yes_token_id, closed, closed_at, uma_resolution_status)
    select 'old-m-' || i, 'old-' || (1 + (i - 1) / ${CLOSED_PER_EVENT}), (i - 1) % ${CLOSED_PER_EVENT}, 'Closed market ' || i, '["Yes","No"]', '[1,0]',
      jsonb_build_array('old-t-' || i || '-1', 'old-t-' || i || '-2'), 'old-t-' || i || '-1', true, now(), 'resolved'
    from generate_series(1, ${markets}) i`);
  await database.rows(sql`analyze catalog_events`);
  await database.rows(sql`analyze catalog_markets`);
}

/**
 * `npm run bench -- sync [--events=300] [--runs=5] [--closed=0]`: catalog sync passes (`syncCatalogOnce`) against
 * an in-process simulator of `events` events, into an on-disk PGlite (a temporary folder), the
 * default install's database. After the first fill, each run times a pass where the venue changed
 * nothing and one where every stored row differs from the venue (the stored volumes are bumped
 * first): the whole pass, and the longest the pass held the connection in one go. `--closed=N`
 * stores N closed markets of long-closed events after the first fill, as months of use leave them.
 */
export async function runSyncBench(args: string[]): Promise<void> {
  const option = (name: string, fallback: number) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
  const events = option('events', 300);
  const runs = option('runs', 5);
  const closed = option('closed', 0);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'oddswatch-sync-bench-'));
  const pg = await openPgliteFolder(dir, false);
  const holds = timeHolds(pg);
  const database = await openDatabase({ pglite: pg, dataDir: dir });
  const sim = createSimulator({ port: 0, seed: 7, randomWalk: false, tickIntervalMs: 1000, logger: silent, eventCount: events });
  try {
    await migrate(database);
    const urls = await sim.start();
    const gamma = createGammaClient({ baseUrl: urls.gammaUrl, logger: silent, timeoutMs: 30_000 });
    let at = Date.now();
    const pass = () => syncCatalogOnce({ database, gamma, logger: silent, now: () => new Date((at += 60_000)) });
    const first = await timedPass(pass, holds);
    if (closed > 0) await storeClosedHistory(database, closed);
    const report = await pass();
    const results: Record<string, (Holds & { passMs: number })[]> = { unchanged: [], 'all rows changed': [] };
    for (let i = 0; i < runs; i++) {
      results.unchanged.push(await timedPass(pass, holds));
      await database.rows(sql`update catalog_events set volume = volume + 1`);
      await database.rows(sql`update catalog_markets set volume = volume + 1`);
      results['all rows changed'].push(await timedPass(pass, holds));
    }
    const history = closed > 0 ? `, and ${fmt(closed)} closed markets (of ${fmt(closed / CLOSED_PER_EVENT)} closed events) stored before` : '';
    console.log(`${machine()}; ${database.kind}; ${report.events} open events, ${report.markets} markets${history}; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const rows = [['first fill (1 run)', fmt(first.passMs), fmt(first.longestMs), String(first.count)]];
    for (const [name, times] of Object.entries(results)) {
      rows.push([`${name} (median of ${runs})`, fmt(median(times.map((t) => t.passMs))), fmt(median(times.map((t) => t.longestMs))), String(median(times.map((t) => t.count)))]);
    }
    printTable(['pass', 'whole pass ms', 'longest hold of the connection ms', 'holds'], rows);
  } finally {
    await sim.stop();
    await database.close();
    await rm(dir, { recursive: true, force: true });
  }
}

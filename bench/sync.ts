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
import { fmt, folderBytes, machine, mb, numberOption, printTable } from './support.js';

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
 * `--days=N` measures what the samples take on disk over days instead (`runSampleGrowth`).
 */
export async function runSyncBench(args: string[]): Promise<void> {
  const option = (name: string, fallback: number) => numberOption(args, name, fallback);
  if (option('days', 0) > 0) return runSampleGrowth(option('events', 100), option('days', 0), option('passesPerDay', 48));
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
    const onDisk = await Promise.all(['catalog_events', 'catalog_markets'].map(async (t) => `${t} ${mb(await tableBytes(database, t), 1)}`));
    console.log(`on disk after the runs, indexes included: ${onDisk.join(', ')}`);
  } finally {
    await sim.stop();
    await database.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Bytes on disk of a table with its indexes, its partitions' included. */
async function tableBytes(database: Awaited<ReturnType<typeof openDatabase>>, table: string): Promise<number> {
  const [row] = await database.rows<{ bytes: string }>(sql`select sum(pg_total_relation_size(c.oid))::text as bytes from pg_class c
    where c.oid = ${table}::regclass or c.oid in (select inhrelid from pg_inherits where inhparent = ${table}::regclass)`);
  return Number(row!.bytes);
}

/**
 * `npm run bench -- sync --days=N [--events=100] [--passesPerDay=48]`: N days of sync passes on a
 * clock that moves 24 h / passesPerDay a pass, into an on-disk PGlite, and at the end of each day
 * what `market_samples` takes on disk (indexes and partitions included), its live rows, and the
 * whole data folder. The baseline, from the same run: the same live rows copied into a fresh table
 * with the same primary key, i.e. the table with no dead space.
 */
async function runSampleGrowth(events: number, days: number, passesPerDay: number): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'oddswatch-sync-bench-'));
  const database = await openDatabase({ pglite: await openPgliteFolder(dir, false), dataDir: dir });
  const sim = createSimulator({ port: 0, seed: 7, randomWalk: false, tickIntervalMs: 1000, logger: silent, eventCount: events });
  try {
    await migrate(database);
    const urls = await sim.start();
    const gamma = createGammaClient({ baseUrl: urls.gammaUrl, logger: silent, timeoutMs: 30_000 });
    const step = 86_400_000 / passesPerDay;
    let at = Date.UTC(2026, 0, 1);
    const rows: string[][] = [];
    let markets = 0;
    for (let day = 1; day <= days; day++) {
      for (let i = 0; i < passesPerDay; i++) markets = (await syncCatalogOnce({ database, gamma, logger: silent, now: () => new Date((at += step)) })).markets;
      const [live] = await database.rows<{ n: number }>(sql`select count(*)::int as n from market_samples`);
      rows.push([String(day), fmt(live!.n), mb(await tableBytes(database, 'market_samples'), 1), mb(await folderBytes(dir), 1)]);
    }
    await database.rows(sql`create table bench_packed_samples (like market_samples)`);
    await database.rows(sql`insert into bench_packed_samples select * from market_samples`);
    await database.rows(sql`alter table bench_packed_samples add primary key (market_id, at)`);
    const packed = await tableBytes(database, 'bench_packed_samples');
    console.log(`${machine()}; ${database.kind}; ${markets} markets, ${passesPerDay} passes a day (a sample per market a pass), ${days} days; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    printTable(['end of day', 'live samples', 'market_samples on disk', 'data folder'], rows);
    console.log(`baseline: the last day's live samples alone, copied into a fresh table with the same primary key: ${mb(packed, 1)}`);
  } finally {
    await sim.stop();
    await database.close();
    await rm(dir, { recursive: true, force: true });
  }
}

import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { syncCatalogOnce } from '../src/catalog/index.js';
import { migrate, openDatabase } from '../src/db/index.js';
import { openPgliteFolder } from '../src/db/pglite-folder.js';
import { startCheckpoints } from '../src/db/pglite-checkpoints.js';
import { createLogger } from '../src/logger.js';
import { createSimulator } from '../src/simulator/index.js';
import { createGammaClient } from '../src/venue/gamma/client.js';
import { fmt, folderBytes, machine, mb, numberOption, printTable } from './support.js';

interface LoadReport {
  passes: number;
  markets: number;
  walWritten: number;
  checkpoints: number;
  longestCheckpointMs: number;
  loadMs: number;
}

/**
 * The child: sync passes in which every stored row differs from the venue (the stored volumes are
 * bumped before each), into an on-disk PGlite, with or without the service's checkpoints; then it
 * exits without closing the database, as a crash or a kill would leave the folder.
 */
async function runLoad(dir: string, checkpoints: boolean, passes: number, events: number): Promise<void> {
  const logs: { ms: number }[] = [];
  const logger = createLogger('debug', {
    write: (line: string) => {
      const entry = JSON.parse(line) as { msg?: string; ms?: number };
      if (entry.msg === 'pglite checkpoint') logs.push({ ms: entry.ms! });
    },
  });
  const silent = createLogger('silent');
  const database = await openDatabase({ pglite: await openPgliteFolder(dir, false), dataDir: dir });
  await migrate(database);
  const sim = createSimulator({ port: 0, seed: 7, randomWalk: false, tickIntervalMs: 1000, logger: silent, eventCount: events });
  const urls = await sim.start();
  const gamma = createGammaClient({ baseUrl: urls.gammaUrl, logger: silent, timeoutMs: 30_000 });
  let at = Date.now();
  let markets = (await syncCatalogOnce({ database, gamma, logger: silent, now: () => new Date((at += 60_000)) })).markets;
  const [start] = await database.rows<{ lsn: string }>(sql`select pg_current_wal_lsn()::text as lsn`);
  // The service checks every 30 s against passes a minute apart; these passes come back to back,
  // so the check comes more often (the bound is in bytes of WAL, not time).
  const running = checkpoints ? startCheckpoints(database, { logger, checkEveryMs: 250 }) : undefined;
  const started = performance.now();
  for (let i = 0; i < passes; i++) {
    await database.rows(sql`update catalog_markets set volume = volume + 1`);
    markets = (await syncCatalogOnce({ database, gamma, logger: silent, now: () => new Date((at += 60_000)) })).markets;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const loadMs = performance.now() - started;
  await running?.stop();
  const [written] = await database.rows<{ bytes: string }>(sql`select (pg_current_wal_lsn() - ${start!.lsn}::pg_lsn)::text as bytes`);
  await sim.stop();
  const report: LoadReport = {
    passes,
    markets,
    walWritten: Number(written!.bytes),
    checkpoints: logs.length,
    longestCheckpointMs: Math.max(0, ...logs.map((l) => l.ms)),
    loadMs,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(0);
}

function childLoad(dir: string, checkpoints: boolean, passes: number, events: number): Promise<LoadReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, 'wal', '--child', dir, String(checkpoints), String(passes), String(events)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as LoadReport) : reject(new Error(`load exited ${code}`))));
  });
}

/**
 * `npm run bench -- wal [--passes=150] [--events=300]`: what PGlite's WAL becomes under a write
 * load, and what it costs the next start after an unclean stop. A child process runs `passes` sync
 * passes that rewrite every stored market (~0.4 MB of WAL each at 300 events) into an on-disk
 * PGlite and exits without closing it; then the folder is opened again (what a start after a crash
 * or a kill does first) and timed. Baseline in the same run: the same load with no checkpoints, as
 * PGlite does by itself (and the service did before src/db/pglite-checkpoints.ts).
 */
export async function runWalBench(args: string[]): Promise<void> {
  if (args[0] === '--child') return runLoad(args[1]!, args[2] === 'true', Number(args[3]), Number(args[4]));
  const option = (name: string, fallback: number) => numberOption(args, name, fallback);
  const passes = option('passes', 150);
  const events = option('events', 300);
  const rows: string[][] = [];
  let markets = 0;
  for (const checkpoints of [false, true]) {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'oddswatch-wal-bench-'));
    try {
      const load = await childLoad(dir, checkpoints, passes, events);
      markets = load.markets;
      const walAfterLoad = await folderBytes(path.join(dir, 'pg_wal'));
      const started = performance.now();
      const pg = await openPgliteFolder(dir, false);
      await pg.query('select 1');
      const reopenMs = performance.now() - started;
      await pg.close();
      rows.push([
        checkpoints ? "the service's checkpoints (32 MB / 5 min)" : 'baseline: PGlite alone (no checkpoint)',
        mb(load.walWritten, 1),
        String(load.checkpoints),
        fmt(load.longestCheckpointMs),
        mb(walAfterLoad, 1),
        fmt(reopenMs),
        fmt(load.loadMs / passes, 1),
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  console.log(`${machine()}; pglite on disk; ${markets} markets, ${passes} passes rewriting every market; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  printTable(['case', 'WAL written', 'checkpoints', 'longest checkpoint ms', 'pg_wal on disk at the stop', 'open after the unclean stop ms', 'pass ms (mean)'], rows);
}

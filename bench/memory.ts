import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createInterface } from 'node:readline';
import postgres from 'postgres';
import { runSoak } from './memory-soak.js';
import { machine, numberOption, printTable, serviceArgs } from './support.js';

const root = path.resolve(import.meta.dirname, '..');

interface Measured {
  name: string;
  /** RSS at the end of the idle window, the highest RSS seen in it, and VmHWM (peak since spawn). */
  idleKb: number;
  idleMaxKb: number;
  peakKb: number;
}

function status(pid: number): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    const m = /^(VmRSS|VmHWM):\s+(\d+) kB/.exec(line);
    if (m) fields[m[1]!] = Number(m[2]);
  }
  return fields;
}

/** Spawns `node args`, waits for `readyLine` on stdout, samples RSS once a second for `seconds`. */
async function measure(name: string, args: string[], env: Record<string, string>, readyLine: string, seconds: number): Promise<Measured> {
  const child: ChildProcess = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`${name}: exited with ${code} before "${readyLine}"`)));
      createInterface({ input: child.stdout! }).on('line', (l) => {
        if (l.includes(readyLine)) resolve();
      });
    });
    let idleMaxKb = 0;
    let idleKb = 0;
    for (let s = 0; s < seconds; s++) {
      await sleep(1000);
      idleKb = status(child.pid!).VmRSS!;
      idleMaxKb = Math.max(idleMaxKb, idleKb);
    }
    return { name, idleKb, idleMaxKb, peakKb: status(child.pid!).VmHWM! };
  } finally {
    child.removeAllListeners('exit');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

const service = (env: Record<string, string>) => ({
  PORT: '0',
  SIMULATOR_PORT: '0',
  VENUE: 'simulator',
  LOG_LEVEL: 'info',
  DATABASE_URL: '',
  ...env,
});

const bareNode = `console.log('ready'); setInterval(() => {}, 1 << 30);`;
// PGlite as it comes (its own defaults), opened on the folder the service made, one query run.
const barePglite = (dir: string) =>
  `import { PGlite } from '@electric-sql/pglite'; const pg = await PGlite.create(${JSON.stringify(dir)}); await pg.query('select 1'); console.log('ready'); setInterval(() => {}, 1 << 30);`;

/**
 * `npm run bench -- memory [--seconds=30] [--minutes=10 --rules=10000 --markets=1000 --boundMb=40]`:
 * RSS of the whole service idle (`node <npm start's options> dist/main.js`, as
 * `npm start` runs it, every role, `VENUE=simulator`), on PGlite (first start on an empty folder,
 * then a later start) and on PostgreSQL, beside a bare `node` process and a bare PGlite instance
 * measured in the same run. Processes of one phase run side by side. Then (unless `--minutes=0`)
 * the soak: PGlite, `rules` rules over `markets` markets, RSS through `minutes` of the simulator's
 * random walk; it fails when RSS grew by more than `boundMb` from the walk's start to its end.
 */
export async function runMemoryBench(args: string[]): Promise<void> {
  const seconds = numberOption(args, 'seconds', 30);
  const soak = { minutes: numberOption(args, 'minutes', 10), rules: numberOption(args, 'rules', 10_000), markets: numberOption(args, 'markets', 1_000), boundMb: numberOption(args, 'boundMb', 40) };
  const built = spawnSync(process.execPath, ['bin/ensure-build.js'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('build failed');
  const baseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const dbName = `oddswatch_bench_${process.pid}`;
  const url = new URL(baseUrl);
  url.pathname = `/${dbName}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  const dir = await mkdtemp(path.join(tmpdir(), 'oddswatch-bench-memory-'));
  const started = 'Oddswatch started';
  try {
    console.log(`machine: ${machine()}; idle window ${seconds} s after the ready line; RSS from /proc/<pid>/status`);
    const first = await Promise.all([
      measure('baseline: bare node process', ['-e', bareNode], {}, 'ready', seconds),
      measure('service, PGlite, first start (empty DATA_DIR)', serviceArgs(), service({ DATA_DIR: dir }), started, seconds),
      measure('service, PostgreSQL', serviceArgs(), service({ DATABASE_URL: url.toString(), DATA_DIR: `${dir}-unused` }), started, seconds),
    ]);
    // The bare instance opens a copy of the service's folder: one folder is one PGlite at a time.
    await cp(dir, `${dir}-copy`, { recursive: true });
    const later = await Promise.all([
      measure('baseline: bare PGlite instance (its defaults), a copy of that folder', ['--input-type=module', '-e', barePglite(`${dir}-copy`)], {}, 'ready', seconds),
      measure('service, PGlite, later start', serviceArgs(), service({ DATA_DIR: dir }), started, seconds),
    ]);
    // The same later start with plain `node dist/main.js`, no start options (on its own copy).
    await cp(dir, `${dir}-plain`, { recursive: true });
    const plain = await measure('baseline: later start, plain `node dist/main.js`', ['dist/main.js'], service({ DATA_DIR: `${dir}-plain` }), started, seconds);
    const kb = (n: number) => `${(n / 1024).toFixed(0)} MB`;
    printTable(
      ['process', `RSS idle (after ${seconds} s)`, 'RSS max while idle', 'peak (VmHWM)'],
      [first[0]!, later[0]!, plain, first[1]!, later[1]!, first[2]!].map((m) => [m.name, kb(m.idleKb), kb(m.idleMaxKb), kb(m.peakKb)]),
    );
    if (soak.minutes > 0) {
      const r = await runSoak(soak);
      const growthKb = r.walkEndKb - r.walkStartKb;
      console.log(
        `\nsoak: PGlite, ${r.rules} rules (In App, Crossing/Up/Down, Recurring 0m/5m/30m) over ${r.openMarkets} markets, made through the REST API in ${r.setupSeconds.toFixed(0)} s; ${soak.minutes} min of the simulator's random walk; ${r.firings} notifications`,
      );
      printTable(
        ['RSS at the walk\'s start', 'max during the walk', `after ${soak.minutes} min`, 'growth', 'bound', 'peak (VmHWM)', 'per minute'],
        [[kb(r.walkStartKb), kb(r.walkMaxKb), kb(r.walkEndKb), kb(growthKb), `${soak.boundMb} MB`, kb(r.peakKb), r.perMinuteMb.join(', ')]],
      );
      if (growthKb > soak.boundMb * 1024) throw new Error(`RSS grew by ${kb(growthKb)} during the walk, over the ${soak.boundMb} MB bound`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(`${dir}-copy`, { recursive: true, force: true });
    await rm(`${dir}-unused`, { recursive: true, force: true });
    await rm(`${dir}-plain`, { recursive: true, force: true });
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
}

import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { machine, printTable, serviceArgs } from './support.js';

const root = path.resolve(import.meta.dirname, '..');

/**
 * Milliseconds from spawning `node args` until it is ready, then SIGTERM. Ready: the process exits
 * (no `line`); `line` appears on stdout; with `readyz`, the URL logged on that line answers
 * `GET /readyz` with 200 (polled).
 */
async function timeUntil(args: string[], env: Record<string, string>, line?: string, readyz = false): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (!line) {
    await exited;
    return performance.now() - started;
  }
  try {
    const url = await new Promise<string>((resolve, reject) => {
      void exited.then((code) => reject(new Error(`exited with ${code}`)));
      createInterface({ input: child.stdout! }).on('line', (l) => {
        if (l.includes(line)) resolve((JSON.parse(l) as { url?: string }).url ?? '');
      });
    });
    if (readyz) {
      while ((await fetch(`${url}/readyz`).then((r) => r.status, () => 0)) !== 200) await sleep(5);
    }
    return performance.now() - started;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const openPglite = (dir: string) =>
  `import { PGlite } from '@electric-sql/pglite'; const pg = await PGlite.create(${JSON.stringify(dir)}); await pg.query('select 1'); await pg.close();`;

/**
 * `npm run bench -- start [--runs=3]`: `node <options> dist/main.js` (what `npm start` runs after its build
 * check) to `GET /readyz` 200, on PGlite with every role and the default venue (pointed at a closed
 * port: the start must not wait for the venue), on an empty and on an existing `DATA_DIR`. Baselines
 * in the same run: `node -e ''`, and a bare PGlite opening an empty and then that same folder.
 *
 * The service's starts come first, all of them, and the baselines after; folders are removed once
 * everything ran. A first start writes a copy of the image, and its time swings with what the disk
 * is still doing with earlier writes and removals (docs/PERFORMANCE.md, Start time): timed right
 * after the initdb baseline's ~40 MB folder and two folders' removal, as it was, it measured
 * the bench more than the start.
 */
export async function runStartBench(args: string[]): Promise<void> {
  const runs = Number(args.find((a) => a.startsWith('--runs='))?.slice(7) ?? 3);
  const built = spawnSync(process.execPath, ['bin/ensure-build.js'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('build failed');
  const env = { PORT: '0', LOG_LEVEL: 'info', DATABASE_URL: '', GAMMA_URL: 'http://127.0.0.1:9', CLOB_URL: 'http://127.0.0.1:9', CLOB_WS_URL: 'ws://127.0.0.1:9' };
  const rows: Record<string, number[]> = {
    'baseline: node -e ""': [],
    'baseline: bare PGlite, open an empty folder (initdb) + select 1': [],
    'baseline: bare PGlite, reopen that folder + select 1': [],
    'first start, empty DATA_DIR (copy of dist/pglite-image + first account)': [],
    'later start, existing DATA_DIR': [],
    'later start, plain `node dist/main.js` (without the start options)': [],
  };
  const [node, pgliteFirst, pgliteLater, first, later, plain] = Object.values(rows) as [number[], number[], number[], number[], number[], number[]];
  const folders: string[] = [];
  const newFolder = async (prefix: string) => {
    const dir = await mkdtemp(path.join(tmpdir(), prefix));
    folders.push(dir);
    return dir;
  };
  try {
    for (let i = 0; i < runs; i++) {
      const dir = await newFolder('oddswatch-bench-start-');
      first.push(await timeUntil(serviceArgs(), { ...env, DATA_DIR: dir }, '"Oddswatch started"', true));
      later.push(await timeUntil(serviceArgs(), { ...env, DATA_DIR: dir }, '"Oddswatch started"', true));
      plain.push(await timeUntil(['dist/main.js'], { ...env, DATA_DIR: dir }, '"Oddswatch started"', true));
    }
    for (let i = 0; i < runs; i++) {
      node.push(await timeUntil(['-e', ''], {}));
      const bare = await newFolder('oddswatch-bench-start-pglite-');
      pgliteFirst.push(await timeUntil(['--input-type=module', '-e', openPglite(bare)], {}));
      pgliteLater.push(await timeUntil(['--input-type=module', '-e', openPglite(bare)], {}));
    }
  } finally {
    for (const dir of folders) await rm(dir, { recursive: true, force: true });
  }
  console.log(`machine: ${machine()}; median of ${runs} runs; node ${serviceArgs().join(" ")}, every role, spawn to GET /readyz 200; the service's starts first, baselines after, folders removed at the end`);
  printTable(
    ['case', 'median ms', 'all runs ms'],
    Object.entries(rows).map(([name, xs]) => [name, median(xs).toFixed(0), xs.map((x) => x.toFixed(0)).join(', ')]),
  );
}

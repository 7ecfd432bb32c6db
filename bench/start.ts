import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { machine, printTable } from './support.js';

const root = path.resolve(import.meta.dirname, '..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

/** Milliseconds from spawn until `line` appears on stdout (or the process exits), then SIGTERM. */
function timeUntil(args: string[], env: Record<string, string>, line?: string): Promise<number> {
  const started = performance.now();
  const child = spawn(tsx, args, { cwd: root, env: { ...process.env, ...env } as Record<string, string>, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => (line ? reject(new Error(`exited with ${code}`)) : resolve(performance.now() - started)));
    if (!line) return;
    createInterface({ input: child.stdout! }).on('line', (l) => {
      if (!l.includes(line)) return;
      const ms = performance.now() - started;
      child.removeAllListeners('exit');
      child.once('exit', () => resolve(ms));
      child.kill('SIGTERM');
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** `npm run bench -- start`: time to a listening API on a fresh and on an existing PGlite folder. */
export async function runStartBench(args: string[]): Promise<void> {
  const runs = Number(args.find((a) => a.startsWith('--runs='))?.slice(7) ?? 3);
  const env = { PORT: '0', ROLES: 'api', LOG_LEVEL: 'info', DATABASE_URL: '' };
  const baseline: number[] = [];
  const fresh: number[] = [];
  const reopen: number[] = [];
  const reopenAll: number[] = [];
  for (let i = 0; i < runs; i++) {
    baseline.push(await timeUntil(['-e', ''], {}));
    const dir = await mkdtemp(path.join(tmpdir(), 'oddswatch-bench-start-'));
    try {
      fresh.push(await timeUntil(['src/main.ts'], { ...env, DATA_DIR: dir }, '"Oddswatch started"'));
      reopen.push(await timeUntil(['src/main.ts'], { ...env, DATA_DIR: dir }, '"Oddswatch started"'));
      // Every role, as `npm start` runs; no bot token, and a venue that need not answer for the start.
      reopenAll.push(
        await timeUntil(['src/main.ts'], { ...env, ROLES: 'api,engine,worker,sync,bots', GAMMA_URL: 'http://127.0.0.1:9', DATA_DIR: dir }, '"Oddswatch started"'),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  console.log(`machine: ${machine()}; median of ${runs} runs, spawn to "Oddswatch started" (port open)`);
  printTable(
    ['case', 'median ms', 'all runs ms'],
    [
      ['baseline: tsx running an empty script', median(baseline).toFixed(0), baseline.map((x) => x.toFixed(0)).join(', ')],
      ['first start, empty DATA_DIR (initdb + migrate)', median(fresh).toFixed(0), fresh.map((x) => x.toFixed(0)).join(', ')],
      ['later start, existing DATA_DIR', median(reopen).toFixed(0), reopen.map((x) => x.toFixed(0)).join(', ')],
      ['later start, every role', median(reopenAll).toFixed(0), reopenAll.map((x) => x.toFixed(0)).join(', ')],
    ],
  );
}

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { isAlive, TMP_DIR } from './global-setup.js';
import { waitFor } from './wait.js';

// The service as production runs it: `node dist/main.js`, no tsx in between to cut a drain short.

export const ROOT = path.resolve(import.meta.dirname, '../..');
const LOCK = path.join(TMP_DIR, 'build.lock');

/**
 * Brings dist/ up to date (bin/ensure-build.js: a no-op when it is fresh). Test files in parallel
 * forks take turns through a lock folder so that one compiler writes dist/ at a time.
 */
export async function ensureBuilt(): Promise<void> {
  await mkdir(TMP_DIR, { recursive: true });
  // Another fork's build takes up to a minute or so; a lock older than 5 minutes is taken over.
  await waitFor(takeBuildLock, { timeoutMs: 330_000, intervalMs: 200, message: 'the build lock' });
  try {
    await writeFile(path.join(LOCK, 'pid'), String(process.pid));
    const child = spawn(process.execPath, ['bin/ensure-build.js'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`building dist/ failed (${code}):\n${output}`);
  } finally {
    await rm(LOCK, { recursive: true, force: true });
  }
}

async function takeBuildLock(): Promise<boolean> {
  try {
    await mkdir(LOCK);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const owner = Number(await readFile(path.join(LOCK, 'pid'), 'utf8').catch(() => ''));
    const age = Date.now() - ((await stat(LOCK).catch(() => undefined))?.mtimeMs ?? Date.now());
    // A holder that died (killed run) leaves its lock behind.
    if ((owner && !isAlive(owner)) || age > 300_000) await rm(LOCK, { recursive: true, force: true });
    return false;
  }
}

/** The test's environment for a child on a PGlite folder: DATABASE_URL never leaks in. */
export function serviceEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', ...extra };
  delete env.DATABASE_URL;
  return env;
}

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** The in-process simulator's control endpoints (VENUE=simulator). */
  controlUrl?: string;
  /** Every stdout line so far: the first-start banner and the JSON log lines. */
  printed: string[];
  /** Resolves with the exit code (or the signal's name) whenever the process ends. */
  exited: Promise<number | string>;
}

const children = new Set<ChildProcess>();

/** For afterAll: ends (SIGKILL) whatever a failed test left running. */
export function killLeftovers(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
}

/** Starts `node dist/main.js` and resolves once it logged "Oddswatch started". */
export function startBuiltService(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['dist/main.js'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  const printed: string[] = [];
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  let controlUrl: string | undefined;
  return new Promise((resolve, reject) => {
    void exited.then((code) => reject(new Error(`service exited early with ${code}: ${printed.join('\n')}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      printed.push(line);
      // The logger keeps only the origin of a URL (a path may be a credential): the control
      // endpoints are at /control of the simulator's origin.
      if (line.includes('"venue simulator listening"')) controlUrl = JSON.parse(line).controlUrl;
      if (line.includes('"Oddswatch started"')) resolve({ child, url: JSON.parse(line).url, controlUrl, printed, exited });
    });
  });
}

/** Sends `signal` and resolves with the exit code and how long the process took to end. */
export async function stopService(service: ServiceProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | string; ms: number }> {
  const started = Date.now();
  service.child.kill(signal);
  const code = await service.exited;
  return { code, ms: Date.now() - started };
}

/** The package's CLI (bin/oddswatch.js, which runs dist/cli/main.js). */
export function runCli(env: Record<string, string>, args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, ['bin/oddswatch.js', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout!.on('data', (d) => (stdout += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout })));
}

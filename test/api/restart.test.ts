import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');
const dirs: string[] = [];

function childEnv(dataDir: string) {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', ROLES: 'api' };
  delete env.DATABASE_URL;
  return env;
}

/** Starts `src/main.ts` and resolves with its URL and anything printed before it was ready. */
function startService(dataDir: string): Promise<{ child: ChildProcess; url: string; printed: string[] }> {
  const child = spawn(tsx, ['src/main.ts'], { cwd: root, env: childEnv(dataDir), stdio: ['ignore', 'pipe', 'inherit'] });
  const printed: string[] = [];
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`service exited early with ${code}: ${printed.join('\n')}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      printed.push(line);
      if (line.includes('"Oddswatch started"')) resolve({ child, url: JSON.parse(line).url, printed });
    });
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

function cli(dataDir: string, args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(tsx, ['src/cli/main.ts', ...args], { cwd: root, env: childEnv(dataDir), stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout!.on('data', (d) => (stdout += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout })));
}

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('the service process on a PGlite data dir', () => {
  it('prints the first token once, keeps data across a restart, stops on SIGTERM, and serves the CLI', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'oddswatch-restart-'));
    dirs.push(dataDir);

    const first = await startService(dataDir);
    const token = /API token \(shown once\): (ow_\S+)/.exec(first.printed.join('\n'))?.[1];
    expect(token).toBeDefined();
    const auth = { Authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${first.url}/watchlists`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Survives' }) });
    expect(created.status).toBe(201);

    // The service holds the folder, so the CLI goes through its admin endpoint.
    const viaService = await cli(dataDir, ['accounts', 'create', '--json']);
    expect(viaService.code).toBe(0);
    const lines = viaService.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const account = JSON.parse(lines[0]!);
    expect(Object.keys(account).sort()).toEqual(['token', 'userId']);
    expect(account.token).toMatch(/^ow_/);

    expect(await stop(first.child)).toBe(0);

    // With no service running, the CLI opens the database itself.
    const direct = await cli(dataDir, ['tokens', 'create', '--user', account.userId, '--json']);
    expect(direct.code).toBe(0);
    const second = JSON.parse(direct.stdout.trim());

    const again = await startService(dataDir);
    try {
      expect(again.printed.join('\n')).not.toMatch(/shown once/);
      const list = (await (await fetch(`${again.url}/watchlists`, { headers: auth })).json()) as { watchLists: { name: string }[] };
      expect(list.watchLists.map((w) => w.name)).toEqual(['Survives']);
      for (const t of [account.token, second.token]) {
        const me = await fetch(`${again.url}/me`, { headers: { Authorization: `Bearer ${t}` } });
        expect(me.status).toBe(200);
        expect(((await me.json()) as { userId: string }).userId).toBe(account.userId);
      }
    } finally {
      expect(await stop(again.child)).toBe(0);
    }
  }, 90_000);

  it('refuses a bad setting, naming it', async () => {
    const child = spawn(tsx, ['src/main.ts'], { cwd: root, env: { ...childEnv('/tmp/unused'), PORT: 'eighty' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/PORT="eighty"/);
  });
});

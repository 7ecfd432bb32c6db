import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, killLeftovers, ROOT, runCli, serviceEnv, startBuiltService, stopService } from '../support/service-process.js';

// The production start (`node dist/main.js`, as `npm start` and the image run it): tsx in between
// would SIGKILL a service still draining 30 ms after SIGTERM, and the exit code would be 143.
const dirs: string[] = [];
const childEnv = (dataDir: string) => serviceEnv(dataDir, { ROLES: 'api' });
const startService = (dataDir: string) => startBuiltService(childEnv(dataDir));
const cli = (dataDir: string, args: string[]) => runCli(childEnv(dataDir), args);

beforeAll(ensureBuilt, 180_000);

afterAll(async () => {
  killLeftovers();
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

    expect((await stopService(first)).code).toBe(0);

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
      expect((await stopService(again)).code).toBe(0);
    }
  }, 90_000);

  it('refuses a bad setting, naming it', async () => {
    const child = spawn(process.execPath, ['dist/main.js'], { cwd: ROOT, env: { ...childEnv('/tmp/unused'), PORT: 'eighty' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/PORT="eighty"/);
  });
});

import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { ROOT, serviceEnv } from '../support/service-process.js';

// `npm run cli` as it runs: tsx over src/cli/main.ts, in a child, on a PGlite folder of its own.
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'oddswatch-cli-'));
});
afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], extra: Record<string, string> = {}): Promise<Run> {
  // Debug logs on: whatever a command logs must still stay off stdout.
  const env = serviceEnv(dataDir, { LOG_LEVEL: 'debug', VENUE: 'simulator', SIMULATOR_PORT: '0', ...extra });
  const child = spawn(TSX, ['src/cli/main.ts', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** stdout holds exactly one line, and it is a JSON object. */
function onlyJson(run: Run): Record<string, unknown> {
  expect(run.stdout.endsWith('\n'), run.stdout).toBe(true);
  const lines = run.stdout.slice(0, -1).split('\n');
  expect(lines, run.stdout).toHaveLength(1);
  const parsed = JSON.parse(lines[0]!);
  expect(typeof parsed).toBe('object');
  return parsed;
}

describe('the command line', () => {
  it('--help lists every command with its one-line description, on stdout, exit 0', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const run = await cli([flag]);
      expect(run.code, flag).toBe(0);
      for (const command of Object.values(COMMANDS)) {
        expect(run.stdout).toContain(command.usage);
        expect(run.stdout).toContain(command.summary);
      }
      expect(run.stdout).toContain('--json');
    }
    const json = onlyJson(await cli(['--help', '--json']));
    expect((json.commands as { usage: string }[]).map((c) => c.usage.split(' [')[0]!.split(' --')[0])).toEqual([
      'accounts create',
      'tokens create',
      'migrate',
      'sync-once',
    ]);
  }, 60_000);

  it('an unknown command, no command or a stray word: the mistake and the help on stderr, exit 2, nothing on stdout', async () => {
    for (const [args, said] of [
      [['frobnicate'], 'unknown command "frobnicate"'],
      [[], 'no command given'],
      [['migrate', 'now'], 'unexpected argument "now" after "migrate"'],
    ] as const) {
      const run = await cli([...args, '--json']);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(said);
      expect(run.stderr).toContain('Commands:');
    }
  }, 60_000);

  it('--json prints one JSON line on stdout for every command, logs on stderr, with debug logging on', async () => {
    const migrated = onlyJson(await cli(['migrate', '--json']));
    expect(migrated).toEqual({ message: 'migrations applied' });

    const account = onlyJson(await cli(['accounts', 'create', '--name', 'ci', '--json']));
    expect(Object.keys(account).sort()).toEqual(['token', 'userId']);
    expect(account.token).toMatch(/^ow_/);

    const token = onlyJson(await cli(['tokens', 'create', '--user', String(account.userId), '--json']));
    expect(token).toMatchObject({ userId: account.userId, token: expect.stringMatching(/^ow_/) });

    const synced = await cli(['sync-once', '--json']);
    const report = onlyJson(synced);
    expect(report.events).toBeGreaterThan(100);
    // The command did log (the simulator, the sync): all of it went to stderr.
    expect(synced.stderr).toMatch(/"level"/);

    // Every command is covered above.
    expect(Object.keys(COMMANDS).sort()).toEqual(['accounts create', 'migrate', 'sync-once', 'tokens create']);
  }, 120_000);

  it('a failing command with --json: nothing on stdout, the error on stderr, exit 1', async () => {
    const run = await cli(['tokens', 'create', '--json']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('error: tokens create needs --user <userId>');
  }, 60_000);
});

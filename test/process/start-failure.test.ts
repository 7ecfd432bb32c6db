import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, serviceEnv } from '../support/service-process.js';

// A PGlite folder that cannot be opened ends the start with the service's own "could not start"
// line and exit 1. The folder opens while the rest of the code loads (main.ts): its failure once
// came out as an unhandled rejection, a bare stack on stderr and nothing in the log.

let scratch: string;
beforeAll(async () => {
  await ensureBuilt();
  scratch = await mkdtemp(path.join(tmpdir(), 'oddswatch-start-failure-'));
}, 180_000);
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('a start whose data folder cannot be opened', () => {
  it('logs "could not start" with the reason and exits 1', async () => {
    const file = path.join(scratch, 'a-file');
    await writeFile(file, 'not a folder');
    const child = spawn(process.execPath, ['dist/main.js'], {
      cwd: ROOT,
      env: serviceEnv(path.join(file, 'data'), { VENUE: 'simulator', SIMULATOR_PORT: '0' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    const fatal = stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string; err?: { message: string } })
      .find((l) => l.msg === 'could not start');
    expect(fatal?.level).toBe(60);
    expect(fatal?.err?.message).toContain('ENOTDIR');
    expect(stderr).not.toContain('node:internal');
  }, 60_000);
});

import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, killLeftovers, ROOT, serviceEnv, startBuiltService, stopService, type ServiceProcess } from '../support/service-process.js';

// The README's walkthrough, run as a reader would: its `sh walkthrough` blocks in order in one bash,
// against `npm start`'s service (node dist/main.js) with VENUE=simulator on a PGlite folder.

/** The fenced `sh walkthrough` blocks of the README's walkthrough section, in order. */
async function walkthroughBlocks(): Promise<string[]> {
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Your first hour');
  expect(start, 'the README has its walkthrough section').toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^```sh walkthrough\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const STEP = '@@walkthrough step ';

let dataDir: string;
let service: ServiceProcess | undefined;

beforeAll(ensureBuilt, 180_000);
afterAll(async () => {
  if (service) await stopService(service);
  killLeftovers();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

// The walkthrough is written for the default embedded database (its `sync-once` goes through the
// running service, which holds the PGlite folder), so it runs on PGlite in both CI passes' first.
describe.skipIf(Boolean(process.env.DATABASE_URL))('the README walkthrough (PGlite; the PostgreSQL pass skips it)', () => {
  it('runs as written against VENUE=simulator: search, ids in variables, a webhook received locally, an alert fired', async () => {
    const blocks = await walkthroughBlocks();
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    dataDir = await mkdtemp(path.join(tmpdir(), 'oddswatch-readme-'));
    const settings = { VENUE: 'simulator', ALLOW_PRIVATE_URLS: 'true', SIMULATOR_PORT: String(await freePort()) };
    service = await startBuiltService(serviceEnv(dataDir, settings));
    const port = new URL(service.url).port;

    // The reader's second terminal: the same folder and settings the README's defaults stand for.
    // TMPDIR: the receiver's log (mktemp) goes with the data folder.
    const env = { ...serviceEnv(dataDir, settings), PORT: port, RECEIVER_PORT: String(await freePort()), LOG_LEVEL: 'info', TMPDIR: dataDir };
    delete (env as Record<string, string>).VENUE;
    delete (env as Record<string, string>).ALLOW_PRIVATE_URLS;
    const script = ['set -euo pipefail', ...blocks.flatMap((block, i) => [`echo '${STEP}${i}'`, block])].join('\n');
    // Its own process group: the receiver it starts in the background goes with it at the end.
    const bash = spawn('bash', ['-c', script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    bash.stdout!.on('data', (d) => (stdout += d));
    bash.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => bash.once('exit', resolve));
    try {
      process.kill(-bash.pid!, 'SIGTERM');
    } catch {
      // Nothing left in the group.
    }
    expect(code, `bash failed:\n${stdout}\n${stderr}`).toBe(0);

    const steps = stdout.split(STEP).slice(1).map((s) => s.slice(s.indexOf('\n') + 1).trimEnd().split('\n'));
    const [sync, search, account, watchlist, receiver, alert, arrived] = steps as [string[], string[], string[], string[], string[], string[], string[]];
    expect(sync[0]).toMatch(/^\d{3} events, \d+ markets$/);

    // Words, then a tag given in capitals ("Fed": the simulator's fed events), then the ids kept.
    const titles = search.filter((line) => !/^(event|market) \d+: /.test(line));
    expect(titles.some((t) => /Bitcoin/.test(t) && /August/.test(t)), titles.join('\n')).toBe(true);
    expect(titles.filter((t) => /^Fed decision in \w+\?$/.test(t)), titles.join('\n')).toHaveLength(3);
    expect(search.at(-2)).toMatch(/^event \d+: .*Bitcoin/);
    expect(search.at(-1)).toMatch(/^market \d+: /);

    expect(account).toEqual([expect.stringMatching(/^account [0-9a-f-]{36}$/)]);
    expect(watchlist).toEqual([expect.stringMatching(/^[0-9a-f-]{36} Bitcoin$/)]);

    expect(receiver[0]).toBe('sent: true, status 200');
    expect(receiver.join('\n')).toMatch(/verified \S+: price_notification "Will this test alert reach you\?".*\(test\)/);

    expect(alert).toEqual([expect.stringMatching(/^alert [0-9a-f-]{36}$/)]);

    const market = search.at(-1)!.replace(/^market \d+: /, '');
    // The price set was 0.7; the random walk may have nudged it by the time the engine saw it.
    const fired = new RegExp(`^[0-9a-f-]{36}: ${market.replace(/[$?.()]/g, '\\$&')} at (0\\.\\d+)$`).exec(arrived[0]!);
    expect(fired, arrived[0]).not.toBeNull();
    expect(Number(fired![1])).toBeGreaterThan(0.6);
    expect(arrived.slice(1, 3)).toEqual(['In App: SENT', 'Webhook: SENT']);
    expect(arrived[3]).toBe('rule off: Triggered, fired 1 time(s)');
    // The receiver's line for it: the webhook-id is the notification's id.
    const notificationId = arrived[0]!.split(':')[0]!;
    expect(arrived.slice(4).some((line) => line.includes(`verified ${notificationId}: price_notification "${market}" at `)), arrived.join('\n')).toBe(true);

    // The docs page the walkthrough ends on, from the built bundle as npm start serves it.
    const docs = await fetch(`${service.url}/docs/scalar.js`);
    expect(docs.status).toBe(200);
    expect((await docs.text()).length).toBeGreaterThan(1_000_000);
  }, 180_000);
});

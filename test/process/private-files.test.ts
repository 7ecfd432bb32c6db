import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, killLeftovers, serviceEnv, startBuiltService, stopService } from '../support/service-process.js';

let parent: string;
beforeAll(async () => {
  await ensureBuilt();
  parent = await mkdtemp(path.join(tmpdir(), 'oddswatch-private-'));
  // The usual login umask, whatever an earlier test of this fork set: the service must not rely on it.
  process.umask(0o022);
}, 180_000);
afterAll(async () => {
  killLeftovers();
  if (parent) await rm(parent, { recursive: true, force: true });
});

/** Every folder and file under `root` whose mode is not 0700 / 0600, as "mode path". */
async function notPrivate(root: string): Promise<string[]> {
  const found: string[] = [];
  const check = async (p: string, dir: boolean) => {
    const mode = (await stat(p)).mode & 0o777;
    if (mode !== (dir ? 0o700 : 0o600)) found.push(`${mode.toString(8)} ${path.relative(root, p) || '.'}`);
  };
  await check(root, true);
  for (const e of await readdir(root, { recursive: true, withFileTypes: true })) {
    await check(path.join(e.parentPath, e.name), e.isDirectory());
  }
  return found;
}

async function writeSomeData(url: string, token: string) {
  const auth = { Authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  expect((await fetch(`${url}/watchlists`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Private' }) })).status).toBe(201);
  // The webhook signing secret is made on first read and stored.
  expect((await fetch(`${url}/webhook-secret`, { headers: auth })).status).toBe(200);
}

describe('the embedded database folder', () => {
  it('holds only private folders (0700) and files (0600), the admin secret file included, fixes an older open folder, and stays so on a later start', async () => {
    const dataDir = path.join(parent, 'data'); // made by the service
    const env = serviceEnv(dataDir, { ROLES: 'api' });

    const first = await startBuiltService(env);
    const token = /API token \(shown once\): (ow_\S+)/.exec(first.printed.join('\n'))![1]!;
    await writeSomeData(first.url, token);
    expect((await stat(path.join(dataDir, 'admin.json'))).mode & 0o777).toBe(0o600);
    expect(await notPrivate(dataDir)).toEqual([]);
    expect((await stopService(first)).code).toBe(0);
    expect(await notPrivate(dataDir)).toEqual([]);

    // A folder an earlier version left readable by everyone is made private at the next start.
    const opened = async (p: string) => {
      for (const e of await readdir(p, { withFileTypes: true })) {
        const child = path.join(p, e.name);
        if (e.isDirectory()) await opened(child);
        await chmod(child, e.isDirectory() ? 0o777 : 0o666);
      }
    };
    await opened(dataDir);
    await chmod(dataDir, 0o777);
    const again = await startBuiltService(env);
    await writeSomeData(again.url, token);
    expect((await stopService(again)).code).toBe(0);
    expect(await notPrivate(dataDir)).toEqual([]);

    // A later start on a private folder does not walk it: what PGlite creates while running is
    // private by the umask alone (checked before the stop, whose walk would hide a miss).
    const later = await startBuiltService(env);
    await writeSomeData(later.url, token);
    expect(await notPrivate(dataDir)).toEqual([]);
    expect((await stopService(later)).code).toBe(0);
  }, 120_000);
});

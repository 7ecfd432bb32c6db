import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Database } from '../../src/db/index.js';
import { allAdvisoryLocks, BATCH_LOCK_CLASS, MAX_SHARDS, NOTIFY_CHANNELS, SHARD_LOCK_CLASS, SYNC_LOCK } from '../../src/db/coordination.js';
import { createTestDatabase } from '../support/db.js';
import { waitFor } from '../support/wait.js';

const SRC = path.resolve(import.meta.dirname, '../../src');

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : [path.join(dir, e.name)])));
  return nested.flat().filter((f) => f.endsWith('.ts'));
}

describe('the coordination registry', () => {
  it('gives every advisory lock its own key, engine slots included', () => {
    const locks = allAdvisoryLocks();
    const identities = locks.map((l) => `${l.classid}/${l.objid}/${l.objsubid}`);
    expect(new Set(identities).size, JSON.stringify(locks)).toBe(locks.length);
    const slots = locks.filter((l) => l.classid === SHARD_LOCK_CLASS && l.objsubid === 2);
    expect(slots.map((l) => l.objid)).toEqual(Array.from({ length: MAX_SHARDS }, (_, i) => i));
    // No one-key lock falls in the membership class either, whatever form PostgreSQL shows it in.
    expect(locks.filter((l) => l.objsubid === 1 && (l.classid === SHARD_LOCK_CLASS || l.objid === SHARD_LOCK_CLASS))).toEqual([]);
    // Batched sends lock any hash of their key in a class of their own: no other lock may use it.
    expect(BATCH_LOCK_CLASS).not.toBe(SHARD_LOCK_CLASS);
    expect(locks.filter((l) => l.classid === BATCH_LOCK_CLASS || (l.objsubid === 1 && l.objid === BATCH_LOCK_CLASS))).toEqual([]);
  });

  it('gives every LISTEN/NOTIFY channel its own name', () => {
    expect(new Set(NOTIFY_CHANNELS).size).toBe(NOTIFY_CHANNELS.length);
  });

  it('is where every lock key and channel name in src/ comes from', async () => {
    const offenders: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      if (file.endsWith(path.join('db', 'coordination.ts'))) continue;
      const text = await readFile(file, 'utf8');
      const literal = [
        /(?:tryAdvisoryLock|withAdvisoryLock)\(\s*(?:0x|\d)/, // a lock key written in place
        /\.listen\(\s*['"`]/, // a channel name written in place
        /notifyChanges?\([^,]+,\s*['"`]/,
        /pg_notify\(\s*'/,
        /pg_(?:try_)?advisory_(?:xact_)?lock(?:_shared)?\(\s*\d/,
        /const \w+_LOCKS?\s*=\s*(?:0x|\d|\{)/, // a new key defined outside the registry
        /const \w+(?:_CHANNEL|_CHANGED)\s*=\s*['"`]/, // a new channel defined outside the registry
      ];
      for (const pattern of literal) if (pattern.test(text)) offenders.push(`${path.relative(SRC, file)}: ${pattern}`);
    }
    expect(offenders).toEqual([]);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('locks on PostgreSQL (needs DATABASE_URL)', () => {
  let a: Awaited<ReturnType<typeof createTestDatabase>>;
  let b: Database;
  beforeAll(async () => {
    a = await createTestDatabase();
    b = await openDatabase({ databaseUrl: a.url!, maxConnections: 2 });
  });
  afterAll(async () => {
    await b?.close();
    await a?.drop();
  });

  it('a starting process migrates while another process runs a catalog sync pass', async () => {
    const syncPass = await a.tryAdvisoryLock(SYNC_LOCK);
    expect(syncPass).toBeDefined();
    try {
      const started = Date.now();
      let done = 'still waiting';
      const migrating = migrate(b).then(() => (done = 'migrated'));
      // A migration stuck behind the lock is released by the finally below, so it cannot outlive the test.
      await waitFor(() => done === 'migrated', { timeoutMs: 3000, message: 'the migration beside a sync pass' }).catch(() => undefined);
      expect(done).toBe('migrated');
      await migrating;
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await syncPass!.release();
    }
  });
});

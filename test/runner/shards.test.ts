import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/index.js';
import { createEngineRunner, type EngineRunner } from '../../src/runner/engine-runner.js';
import { joinShards, ownerRank, tokenHash, type ShardMembership, type ShardView } from '../../src/runner/shards.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { clock, notificationsOf, seedEvent, silent, subscribe, watchlistWith } from './helpers.js';
import { waitFor } from '../support/wait.js';

const onPostgres = !!process.env.DATABASE_URL;

let env: TestEnv;
const cleanup: (() => Promise<void>)[] = [];
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => {});
  await env?.close();
});

async function member(database: Database): Promise<ShardMembership> {
  const m = await joinShards({ database, logger: silent, refreshIntervalMs: 200 });
  cleanup.push(() => m.close());
  return m;
}

async function secondHandle(): Promise<Database> {
  const db = await openDatabase({ databaseUrl: env.databaseUrl!, maxConnections: 3 });
  cleanup.push(() => db.close());
  return db;
}

const tokens = Array.from({ length: 2000 }, (_, i) => `${BigInt(i) * 7919n + 10n ** 70n}`);

describe('engine shards: token split', () => {
  it('FNV-1a is stable (known vectors)', () => {
    expect(tokenHash('')).toBe(0x811c9dc5);
    expect(tokenHash('a')).toBe(0xe40c292c);
    expect(tokenHash('foobar')).toBe(0xbf9cf968);
  });

  it('is a partition: every token is owned by exactly one of n ranks, and the shares are even', () => {
    for (const n of [1, 2, 3, 5, 8, 64]) {
      const share = new Array<number>(n).fill(0);
      for (const t of tokens) {
        const owners = Array.from({ length: n }, (_, r) => r).filter((r) => ownerRank(t, n) === r);
        expect(owners).toHaveLength(1);
        share[owners[0]!]!++;
      }
      expect(share.reduce((a, b) => a + b, 0)).toBe(tokens.length);
      if (n <= 8) for (const s of share) expect(s).toBeGreaterThan((tokens.length / n) * 0.7);
    }
  });

  it(`a process alone owns every token (${engineName})`, async () => {
    const m = await member(env.database);
    expect(m.view).toEqual({ count: 1, rank: 0 });
    expect(tokens.every((t) => m.owns(t))).toBe(true);
    await m.close();
  });
});

describe('engine shards: several processes on one database (PostgreSQL only; skipped on PGlite)', () => {
  it.runIf(onPostgres)('two members see n=2 and distinct ranks; when one leaves the other owns all', async () => {
    const m1 = await member(env.database);
    const m2 = await member(await secondHandle());
    expect(m1.slot).not.toBe(m2.slot);
    const changes: ShardView[] = [];
    m1.on('changed', (v) => changes.push(v));
    await waitFor(() => {
      expect(m1.view.count).toBe(2);
      expect(m2.view.count).toBe(2);
      return true;
    });
    expect(new Set([m1.view.rank, m2.view.rank])).toEqual(new Set([0, 1]));
    for (const t of tokens.slice(0, 200)) expect(Number(m1.owns(t)) + Number(m2.owns(t))).toBe(1);

    await m2.close();
    await waitFor(() => { expect(m1.view).toEqual({ count: 1, rank: 0 }); return true; });
    expect(changes.at(-1)).toEqual({ count: 1, rank: 0 });
    expect(tokens.every((t) => m1.owns(t))).toBe(true);
    await m1.close();
  });

  it.runIf(onPostgres)('a process joining or leaving is seen by the others at once, not at their next refresh', async () => {
    const slow = async (database: Database) => {
      const m = await joinShards({ database, logger: silent, refreshIntervalMs: 60_000 });
      cleanup.push(() => m.close());
      return m;
    };
    const m1 = await slow(env.database);
    expect(m1.view).toEqual({ count: 1, rank: 0 });
    const m2 = await slow(await secondHandle());
    await waitFor(() => { expect(m1.view.count).toBe(2); return true; }, { timeoutMs: 2000 });
    await m2.close();
    await waitFor(() => { expect(m1.view).toEqual({ count: 1, rank: 0 }); return true; }, { timeoutMs: 2000 });
    await m1.close();
  });

  it.runIf(onPostgres)('a member rejoining in the same slot gets a new members key; ready announcements reach the others', async () => {
    const m1 = await member(env.database);
    const m2 = await member(await secondHandle());
    await waitFor(() => { expect(m1.members).toHaveLength(2); return true; });
    const before = m1.membersKey;
    const ready: [number, string][] = [];
    m1.on('ready', (slot, key) => ready.push([slot, key]));
    await m2.announceReady(m2.membersKey);
    await waitFor(() => { expect(ready).toEqual([[m2.slot, before]]); return true; });

    const slot = m2.slot;
    await m2.close();
    await waitFor(() => { expect(m1.members).toHaveLength(1); return true; });
    const m3 = await member(await secondHandle());
    expect(m3.slot).toBe(slot);
    await waitFor(() => { expect(m1.members).toEqual(m3.members); return true; });
    // A "ready" of the earlier run must not count for this one.
    expect(m1.membersKey).not.toBe(before);
    await m3.close();
    await m1.close();
  });

  it.runIf(onPostgres)('two runners fed the same prices write exactly one notification (the owner\'s)', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { title: 'Shared token', markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const market = event.markets[0]!;
    const token = market.yesTokenId;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: market.id, threshold: 60 });

    const db2 = await secondHandle();
    const m1 = await member(env.database);
    const m2 = await member(db2);
    await waitFor(() => {
      expect(m1.view.count).toBe(2);
      expect(m2.view.count).toBe(2);
      return true;
    });
    expect(m1.owns(token)).not.toBe(m2.owns(token));

    // Different clocks: without the gate the two firings would have different dedupe keys.
    const c1 = clock();
    const c2 = clock(c1.now() + 7);
    const runners: [EngineRunner, Database, ShardMembership, ReturnType<typeof clock>][] = [
      [createEngineRunner({ database: env.database, logger: silent, now: c1.now, flushIntervalMs: 60_000, owns: (t) => m1.owns(t) }), env.database, m1, c1],
      [createEngineRunner({ database: db2, logger: silent, now: c2.now, flushIntervalMs: 60_000, owns: (t) => m2.owns(t) }), db2, m2, c2],
    ];
    const written: string[] = [];
    for (const [runner, , , ] of runners) {
      cleanup.push(() => runner.stop());
      await runner.start();
      expect(runner.tokens()).toContain(token);
    }
    runners.forEach(([runner], i) => runner.on('fired', (_f, outcome) => written.push(`${i}:${outcome}`)));

    for (const [runner, , , c] of runners) runner.onPrice(token, 0.5, c.now());
    for (const [, , , c] of runners) c.advance(1000);
    for (const [runner, , , c] of runners) runner.onPrice(token, 0.65, c.now());
    for (const [runner] of runners) await runner.idle();

    const rows = await notificationsOf(env, subId);
    expect(rows).toHaveLength(1);
    const owner = m1.owns(token) ? 0 : 1;
    expect(written).toEqual([`${owner}:written`]);
    expect(rows[0]!.payload).toMatchObject({ detectedAtMs: runners[owner]![3].now(), clobTokenId: token });
  });
});

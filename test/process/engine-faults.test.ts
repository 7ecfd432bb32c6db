import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { count as countRows, inArray } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { notifications } from '../../src/db/schema/index.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { waitFor } from '../support/wait.js';
import { startSimulator } from '../venue/support.js';
import { movePrice, seedFromSimulator, subscribe, watchlistWith } from '../runner/helpers.js';

/**
 * Real engine processes (`tsx src/main.ts`, ROLES=engine) on one PostgreSQL against the venue
 * simulator: every market crosses 50 on every round; one engine is killed with SIGKILL, restarted,
 * then the other is stopped with SIGTERM. Every crossing must be written exactly once.
 */
const onPostgres = !!process.env.DATABASE_URL;
const MARKETS = 20;
const ROUND_MS = 500;
const root = path.resolve(import.meta.dirname, '../..');

interface Engine {
  name: string;
  child: ChildProcess;
  logs: Record<string, unknown>[];
  exited: Promise<void>;
}

const engines: Engine[] = [];
let env: TestEnv | undefined;
let sim: Awaited<ReturnType<typeof startSimulator>> | undefined;
let flipping = false;

afterAll(async () => {
  flipping = false;
  for (const e of engines) if (e.child.exitCode === null && e.child.signalCode === null) e.child.kill('SIGKILL');
  await Promise.all(engines.map((e) => e.exited));
  await sim?.sim.stop();
  await env?.close();
});

function startEngine(name: string, databaseUrl: string, urls: { clobUrl: string; clobWsUrl: string; gammaUrl: string }): Engine {
  // One process (node with the tsx loader, not the tsx wrapper), so SIGKILL hits the engine itself.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: databaseUrl,
      ROLES: 'engine',
      VENUE: 'polymarket',
      CLOB_URL: urls.clobUrl,
      CLOB_WS_URL: urls.clobWsUrl,
      GAMMA_URL: urls.gammaUrl,
      PORT: '0',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => logs.push({ msg: chunk.toString(), stderr: true }));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const engine = { name, child, logs, exited };
  engines.push(engine);
  return engine;
}

// The scenario's phases last a set time while the rounds keep flipping: these sleeps are the
// scenario itself (how many rounds each phase holds), not waits for something to happen.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const timeOf = (line: Record<string, unknown>) => (typeof line.time === 'number' ? line.time : Date.parse(String(line.time)));

/** The first line `msg` an engine logged at or after `after`. */
function logged(e: Engine, msg: string, after: number, timeoutMs = 20_000): Promise<Record<string, unknown>> {
  return waitFor(
    () => {
      const found = e.logs.find((l) => l.msg === msg && timeOf(l) >= after);
      if (found) return found;
      // An exited engine will never log it: its last lines become the timeout's cause.
      if (e.child.exitCode !== null) throw new Error(`${e.name} exited: ${JSON.stringify(e.logs.slice(-5))}`);
      return undefined;
    },
    { timeoutMs, intervalMs: 20, message: `${e.name} to log "${msg}"` },
  );
}

describe('engine faults with real processes (PostgreSQL only; skipped without DATABASE_URL)', () => {
  it.runIf(onPostgres)('kill -9 of an engine, its restart and a graceful stop lose and duplicate no crossing', async () => {
    env = await createTestEnv();
    sim = await startSimulator();
    const { urls } = sim;
    const markets = await seedFromSimulator(env.database, sim.sim.state, MARKETS);
    for (const m of markets) await movePrice(urls.controlUrl, m.id, 0.4);
    const a = await env.newAccount();
    const wl = await watchlistWith(env, a, markets.map((m) => ({ id: m.eventId }) as never));
    const subOf = new Map<string, string>();
    for (const m of markets) {
      subOf.set(await subscribe(env, a, wl, { eventId: m.eventId, marketId: m.id, type: 'Crossing', threshold: 50, triggerInterval: '0m' }), m.id);
    }

    const t0 = Date.now();
    const e1 = startEngine('engine-1', env.databaseUrl!, urls);
    const e2 = startEngine('engine-2', env.databaseUrl!, urls);
    await logged(e1, 'engine started', t0, 40_000);
    await logged(e2, 'engine started', t0, 40_000);
    await sleep(1500);

    // Rounds: every market flips across 50; the venue message's time says which round a firing belongs to.
    const rounds: { start: number; phase: string }[] = [];
    let phase = 'steady';
    flipping = true;
    let price = 0.4;
    // A fault is injected at the start of a round, just before the prices move: the moves fall in
    // the gap before the others notice, the hardest case. The gap holds exactly that one move: the
    // fault waits until every earlier move is written, and the next move waits until the fault
    // round's is. A move undone within the gap (two rounds in it, when a loaded machine makes the
    // dying engine's last write or the takeover later than a round) is compared end to end by the
    // next owner and not seen (docs/engine.md, Known limits); that is the limit, not what this
    // test measures.
    let atNextRound: (() => void) | undefined;
    const beforeRound = (name: string, fault: () => void) =>
      new Promise<number>((resolve) => {
        atNextRound = () => {
          phase = name;
          fault();
          resolve(Date.now());
        };
      });
    const written = async () => {
      const [row] = await env!.database.db
        .select({ n: countRows() })
        .from(notifications)
        .where(inArray(notifications.subscriptionId, [...subOf.keys()]));
      return row?.n ?? 0;
    };
    // Waits until `rounds` rounds' crossings are written; past the timeout the figures below tell.
    const writtenThrough = (count: number) =>
      waitFor(async () => (await written()) >= count * MARKETS, { timeoutMs: 20_000, message: `round ${count} written` }).catch(
        (error: unknown) => console.log(String(error)),
      );
    const flipper = (async () => {
      while (flipping) {
        const fault = atNextRound;
        atNextRound = undefined;
        if (fault) {
          await writtenThrough(rounds.length);
          fault();
        }
        const start = Date.now();
        price = price === 0.4 ? 0.6 : 0.4;
        rounds.push({ start, phase });
        await Promise.all(markets.map((m) => movePrice(urls.controlUrl, m.id, price)));
        if (fault) await writtenThrough(rounds.length);
        await sleep(Math.max(0, ROUND_MS - (Date.now() - start)));
      }
    })();

    const recovery: Record<string, number> = {};
    await sleep(2000);
    const killedAt = await beforeRound('kill -9', () => e2.child.kill('SIGKILL'));
    const takeover = await logged(e1, 'engine token share changed', killedAt);
    recovery['kill -9'] = timeOf(takeover) - killedAt;
    await sleep(3000);

    phase = 'restart';
    const restartAt = Date.now();
    const e3 = startEngine('engine-2 restarted', env.databaseUrl!, urls);
    await logged(e3, 'engine started', restartAt, 40_000);
    recovery.restart = Date.now() - restartAt;
    await sleep(3000);

    const stopAt = await beforeRound('graceful stop', () => e1.child.kill('SIGTERM'));
    const handed = await logged(e3, 'engine token share changed', stopAt);
    recovery['graceful stop'] = timeOf(handed) - stopAt;
    await sleep(3000);
    flipping = false;
    await flipper;

    // Count per (market, round): exactly one firing each.
    const count = new Map<string, number>();
    const expected = rounds.length * MARKETS;
    const load = async () => {
      const rows = await env!.database.db
        .select({ subscriptionId: notifications.subscriptionId, payload: notifications.payload })
        .from(notifications)
        .where(inArray(notifications.subscriptionId, [...subOf.keys()]));
      count.clear();
      for (const r of rows) {
        const at = Number((r.payload as { detectionDetails: { priceChangeTimeMs: string } }).detectionDetails.priceChangeTimeMs);
        let round = rounds.length - 1;
        while (round > 0 && rounds[round]!.start > at) round--;
        const key = `${subOf.get(r.subscriptionId!)}:${round}`;
        count.set(key, (count.get(key) ?? 0) + 1);
      }
      return rows.length;
    };
    await waitFor(async () => (await load()) >= expected, { timeoutMs: 30_000 }).catch(() => {});
    // A late duplicate would come shortly after the last write.
    await sleep(1000);
    await load();

    const byPhase: Record<string, { crossings: number; lost: number; duplicates: number }> = {};
    rounds.forEach((r, i) => {
      const p = (byPhase[r.phase] ??= { crossings: 0, lost: 0, duplicates: 0 });
      for (const m of markets) {
        const n = count.get(`${m.id}:${i}`) ?? 0;
        p.crossings++;
        if (n === 0) p.lost++;
        if (n > 1) p.duplicates += n - 1;
      }
    });
    console.log(JSON.stringify({ expected, byPhase, recoveryMs: recovery }));
    // DEBUG_FAULTS=1 prints the (market, round) pairs not written exactly once and every engine's log.
    if (process.env.DEBUG_FAULTS) {
      const lostAt = rounds.flatMap((r, i) => markets.filter((m) => (count.get(`${m.id}:${i}`) ?? 0) !== 1).map((m) => `${m.id}@${i}:${r.start - restartAt}:${count.get(`${m.id}:${i}`) ?? 0}`));
      console.log('DEBUG lost', lostAt.join(' '));
      for (const e of [e1, e2, e3]) for (const l of e.logs) if (l.msg !== 'engine rules loaded') console.log('DEBUG', e.name, timeOf(l) - restartAt, JSON.stringify(l).slice(90, 400));
    }
    for (const p of Object.values(byPhase)) expect(p).toMatchObject({ lost: 0, duplicates: 0 });
    expect([...count.values()].reduce((x, y) => x + y, 0)).toBe(expected);
  }, 90_000);
});

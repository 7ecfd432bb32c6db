import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../src/db/client.js';
import { insertAccountWithToken } from '../src/services/accounts/index.js';
import { Receiver } from './receiver.js';
import { call, cpuProfileArgs, freePort, percentile, stopChild } from './support.js';

// End to end on real processes: a price move made through the simulator's control endpoint, sent
// on its market WebSocket, read by the engine, written to the outbox, sent by the delivery worker
// and received by a local webhook receiver. The simulator and the service (or services, with
// `split`) are child processes started the way a user starts them; the receiver and the driver
// live in the bench process. Latency runs from the simulator's own timestamp of the move (the
// `price_change` message's `timestamp`, carried to the webhook as
// `detectionDetails.priceChangeTimeMs`) to the receiver's clock; all share one machine clock.

export interface EndToEndOptions {
  /** Firings per second to produce. */
  rate: number;
  seconds: number;
  /** Markets moved in turn. */
  markets: number;
  /** Crossing subscriptions on each market: one move fires this many. */
  perMarket: number;
  /** 1 runs the engine and the delivery worker in separate service processes. */
  split: number;
  /** Seconds at the full rate before the measured ones, not counted. */
  warmupSeconds: number;
}

export interface EndToEndResult {
  expected: number;
  received: number;
  lost: number;
  duplicated: number;
  movesPerSecond: number;
  lateMoves: number;
  p50: number;
  p99: number;
  max: number;
  /** p50 and p99 of each stage: move → detected, detected → payload built, built → received. */
  stages: Record<'detect' | 'write' | 'deliver', { p50: number; p99: number }>;
  /** CPU seconds used during the measured phase: the machine's, this process's and each child's. */
  cpu: { elapsedSeconds: number; machine: number; bench: number; children: { name: string; seconds: number }[]; database: number };
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Child {
  name: string;
  process: ChildProcess;
  output: string;
}

/** Starts a TypeScript entry point with this process's loader; resolves once `ready` matches its output (at once without one). */
function startChild(name: string, entry: string, env: Record<string, string | undefined>, ready: RegExp | null): Promise<Child> {
  // A variable set to undefined is left out (the PGlite service must not inherit DATABASE_URL).
  const childEnv = Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined));
  const child: Child = {
    name,
    // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each child there (open it in Chrome DevTools).
    process: spawn(process.execPath, [...process.execArgv, ...cpuProfileArgs(), `${ROOT}${entry}`], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] }),
    output: '',
  };
  if (!ready) {
    child.process.stdout!.on('data', (chunk: Buffer) => (child.output += chunk.toString()));
    child.process.stderr!.on('data', (chunk: Buffer) => (child.output += chunk.toString()));
    return Promise.resolve(child);
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.process.kill('SIGKILL');
      reject(new Error(`${entry} did not start:\n${child.output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      child.output += chunk.toString();
      if (ready.test(child.output)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.process.stdout!.on('data', onData);
    child.process.stderr!.on('data', onData);
    child.process.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}:\n${child.output}`));
    });
  });
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

/** CPU seconds used so far by each PostgreSQL backend connected to the database (the server on this machine). */
export async function backendCpu(database: Database): Promise<Map<number, number>> {
  const rows = await database.rows<{ pid: number }>(sql`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`);
  return new Map(rows.map((r) => [r.pid, cpuSeconds(r.pid)]));
}

/** CPU seconds the whole machine spent busy, from /proc/stat. */
function machineBusySeconds(): number {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    return (ticks.reduce((a, b) => a + b, 0) - idle) / 100;
  } catch {
    return NaN;
  }
}

function quantiles(values: number[]) {
  const sorted = Float64Array.from(values).sort();
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

interface VenueEvent {
  id: string;
  closed?: boolean;
  markets: { id: string; closed?: boolean }[];
}

/**
 * The receiver of the end-to-end runs: per (subscription, move time) the latency of each receipt
 * (one webhook expected per subscription per move), and per first receipt where the time went:
 * venue → engine detection → payload built (in the write) → received. Counts only while `count(true)`.
 */
function latencyReceiver() {
  const received = new Map<string, number[]>();
  const stages = { detect: [] as number[], write: [] as number[], deliver: [] as number[] };
  let counting = false;
  const receiver = new Receiver((body, at) => {
    if (!counting) return;
    const p = JSON.parse(body.toString()) as {
      subscriptionId: string;
      createdAt: string;
      detectedAtMs: number;
      detectionDetails: { priceChangeTimeMs: string };
    };
    const key = `${p.subscriptionId}@${p.detectionDetails.priceChangeTimeMs}`;
    if (!received.has(key)) {
      const built = Date.parse(p.createdAt);
      stages.detect.push(p.detectedAtMs - Number(p.detectionDetails.priceChangeTimeMs));
      stages.write.push(built - p.detectedAtMs);
      stages.deliver.push(at - built);
    }
    const times = received.get(key);
    if (times) times.push(at - Number(p.detectionDetails.priceChangeTimeMs));
    else received.set(key, [at - Number(p.detectionDetails.priceChangeTimeMs)]);
  });
  return { receiver, received, stages, count: (on: boolean) => (counting = on) };
}

/** The simulator as a child process (random walk off), with its control URL and the venue URLs it prints. */
async function startSimulator(): Promise<{ child: Child; control: string; printed: (name: string) => string }> {
  const child = await startChild(
    'simulator',
    'src/simulator/main.ts',
    { SIMULATOR_PORT: String(await freePort()), SIMULATOR_RANDOM_WALK: 'false', LOG_LEVEL: 'warn' },
    /control: \S+\n/,
  );
  return {
    child,
    control: /control: (\S+)/.exec(child.output)![1]!,
    printed: (name: string) => new RegExp(`${name}=(\\S+)`).exec(child.output)![1]!,
  };
}

/** One open market of each of the first `count` open events of the simulator. */
async function pickMarkets(control: string, count: number): Promise<{ eventId: string; marketId: string }[]> {
  const state = (await call(`${control}/state`)) as unknown as { events: VenueEvent[] };
  const picked = state.events
    .filter((e) => !e.closed && e.markets.some((m) => !m.closed))
    .slice(0, count)
    .map((e) => ({ eventId: e.id, marketId: e.markets.find((m) => !m.closed)!.id }));
  if (picked.length < count) throw new Error(`the simulator has only ${picked.length} open events`);
  return picked;
}

/**
 * Every market at 0.45 first (so creating the rules fires nothing), then one watchlist of the
 * markets' events and `perMarket` Recurring `0m` Crossing 50% rules with a Webhook on each market.
 */
async function createCrossingRules(api: string, control: string, token: string, picked: { eventId: string; marketId: string }[], perMarket: number, webhookUrl: string) {
  for (const { marketId } of picked) await call(`${control}/markets/${marketId}/price`, { body: { price: 0.45 } });
  const watchlist = (await call(`${api}/watchlists`, {
    token,
    body: { name: 'end to end', events: Object.fromEntries(picked.map((p) => [p.eventId, {}])) },
  })) as { watchList: { id: string } };
  for (const p of picked) {
    for (let k = 0; k < perMarket; k++) {
      await call(`${api}/subscriptions`, {
        token,
        body: {
          watchlistId: watchlist.watchList.id,
          subscriptionScope: 'Market',
          eventId: p.eventId,
          marketId: p.marketId,
          subscriptionTypeConfig: { type: 'Crossing', config: { params: { threshold_percent: 50 } } },
          triggerType: 'Recurring',
          triggerInterval: '0m',
          channels: [{ type: 'Webhook', settings: { webhookUrl } }],
        },
      });
    }
  }
}

export async function runEndToEnd(database: Database, databaseUrl: string, o: EndToEndOptions): Promise<EndToEndResult> {
  const { receiver, received, stages, count } = latencyReceiver();
  await receiver.start();
  const children: Child[] = [];
  try {
    const { child: sim, control, printed } = await startSimulator();
    children.push(sim);
    const apiPort = await freePort();
    const api = `http://127.0.0.1:${apiPort}`;
    const serviceEnv = (roles: string, port: number): Record<string, string> => ({
      DATABASE_URL: databaseUrl,
      VENUE: 'polymarket',
      GAMMA_URL: printed('GAMMA_URL'),
      CLOB_URL: printed('CLOB_URL'),
      CLOB_WS_URL: printed('CLOB_WS_URL'),
      ROLES: roles,
      PORT: String(port),
      HOST: '127.0.0.1',
      ALLOW_PRIVATE_URLS: 'true',
      RATE_LIMIT_PER_MINUTE: '1000000',
      MAX_SUBSCRIPTIONS: '100000',
      LOG_LEVEL: 'warn',
    });
    const { token } = await insertAccountWithToken(database.db, { name: 'end to end' });
    children.push(
      await startChild(
        o.split ? 'service (api, sync, engine)' : 'service (api, sync, engine, worker)',
        'src/main.ts',
        serviceEnv(o.split ? 'api,sync,engine' : 'api,sync,engine,worker', apiPort),
        null,
      ),
    );
    await until(async () => (await fetch(`${api}/readyz`).catch(() => undefined))?.ok === true, 'the service to be ready');
    if (o.split) children.push(await startChild('service (worker)', 'src/main.ts', serviceEnv('worker', await freePort()), null));

    const picked = await pickMarkets(control, o.markets);
    const marketIds = picked.map((p) => p.marketId);
    await until(async () => {
      const [row] = await database.rows<{ n: number }>(
        sql`select count(*)::int as n from catalog_markets where id in (${sql.join(marketIds.map((id) => sql`${id}`), sql`, `)})`,
      );
      return (row?.n ?? 0) === marketIds.length;
    }, 'the catalog sync');

    await createCrossingRules(api, control, token, picked, o.perMarket, receiver.url);

    // Warm-up: one crossing per market, until every subscription's webhook has arrived.
    const price = new Map(marketIds.map((m) => [m, 0.45]));
    const move = async (m: string) => {
      const next = price.get(m)! < 0.5 ? 0.55 : 0.45;
      price.set(m, next);
      await call(`${control}/markets/${m}/price`, { body: { price: next } });
    };
    const warm = async () => {
      const before = receiver.received;
      for (const m of marketIds) await move(m);
      return () => receiver.received - before >= marketIds.length * o.perMarket;
    };
    await until(async () => {
      const done = await warm();
      await sleep(1000);
      return done();
    }, 'the warm-up firings (engine subscribed to every token)');
    await sleep(1000);

    // Moves evenly spaced, markets in turn, each move firing `perMarket` webhooks: first
    // `warmupSeconds` at the full rate, not counted (JIT, pools and caches reach their steady
    // state), then `seconds` measured.
    const movesPerSecond = o.rate / o.perMarket;
    const spacingMs = 1000 / movesPerSecond;
    const drive = async (moves: number) => {
      const started = performance.now();
      let late = 0;
      const inFlight: Promise<void>[] = [];
      for (let i = 0; i < moves; i++) {
        const wait = started + i * spacingMs - performance.now();
        if (wait > 0) await sleep(wait);
        else if (wait < -spacingMs) late++;
        const moved = move(marketIds[i % marketIds.length]!);
        // Handled here as well as by Promise.all below: a move failing while the loop still sleeps
        // would otherwise end the process as an unhandled rejection, leaving the children running.
        moved.catch(() => {});
        inFlight.push(moved);
      }
      await Promise.all(inFlight);
      return late;
    };
    if (o.warmupSeconds > 0) {
      const before = receiver.received;
      const warmupMoves = Math.round(movesPerSecond * o.warmupSeconds);
      await drive(warmupMoves);
      await until(async () => receiver.received - before >= warmupMoves * o.perMarket, 'the warm-up at full rate');
      await sleep(500);
    }
    const totalMoves = Math.round(movesPerSecond * o.seconds);
    const cpuBefore = children.map((c) => cpuSeconds(c.process.pid));
    const databaseCpuBefore = await backendCpu(database);
    const busyBefore = machineBusySeconds();
    const benchCpuBefore = process.cpuUsage();
    count(true);
    const started = performance.now();
    const lateMoves = await drive(totalMoves);
    const expected = totalMoves * o.perMarket;
    const deadline = Date.now() + 30_000;
    while (received.size < expected && Date.now() < deadline) await sleep(100);
    await sleep(500); // late duplicates
    count(false);
    const elapsed = (performance.now() - started) / 1000;
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const cpu = {
      elapsedSeconds: elapsed,
      machine: machineBusySeconds() - busyBefore,
      bench: (benchCpu.user + benchCpu.system) / 1e6,
      children: children.map((c, i) => ({ name: c.name, seconds: cpuSeconds(c.process.pid) - cpuBefore[i]! })),
      database: [...(await backendCpu(database))].reduce((sum, [pid, seconds]) => sum + seconds - (databaseCpuBefore.get(pid) ?? 0), 0),
    };

    const latencies = Float64Array.from([...received.values()].map((t) => t[0]!)).sort();
    return {
      expected,
      received: received.size,
      lost: expected - received.size,
      duplicated: [...received.values()].filter((t) => t.length > 1).length,
      movesPerSecond,
      lateMoves,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      max: latencies[latencies.length - 1] ?? NaN,
      cpu,
      stages: {
        detect: quantiles(stages.detect),
        write: quantiles(stages.write),
        deliver: quantiles(stages.deliver),
      },
    };
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    await receiver.close();
  }
}

export interface IdleOptions {
  /** Price moves, one at a time, each firing one webhook. */
  idleMoves: number;
  /** Time between two moves (ms): far longer than one firing takes, so none waits for another. */
  idleSpacingMs: number;
  /** Markets moved in turn, one Crossing rule on each. */
  idleMarkets: number;
  /** Commits timed for the floor. */
  commits: number;
}

export interface IdleResult {
  expected: number;
  received: number;
  lost: number;
  duplicated: number;
  p50: number;
  p99: number;
  max: number;
  stages: Record<'detect' | 'write' | 'deliver', { p50: number; p99: number }>;
  /** One small insert committed on PGlite in a folder of its own, the floor of a durable firing write. */
  commit: { p50: number; p99: number; max: number };
  /**
   * The service's CPU (user + system) from the first measured move until every webhook is in, per
   * firing: what the path costs on the one thread, less swayed than latency by a shared machine
   * (the service's idle work during those seconds, the same for every version, is included).
   */
  serviceCpuPerFiringMs: number;
}

/**
 * Tick → webhook on an idle feed with the default install: the service on PGlite (a fresh data
 * folder, its first-start admin token), the simulator, one move at a time. Then the floor beside
 * it: a PGlite commit of one row, timed in this process once the service has stopped.
 */
export async function runIdleEndToEnd(o: IdleOptions): Promise<IdleResult> {
  const { receiver, received, stages, count } = latencyReceiver();
  await receiver.start();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'oddswatch-bench-idle-'));
  const children: Child[] = [];
  try {
    const { child: sim, control, printed } = await startSimulator();
    children.push(sim);
    const apiPort = await freePort();
    const api = `http://127.0.0.1:${apiPort}`;
    const service = await startChild(
      'service (PGlite)',
      'src/main.ts',
      {
        DATABASE_URL: undefined,
        DATA_DIR: path.join(dataDir, 'service'),
        VENUE: 'polymarket',
        GAMMA_URL: printed('GAMMA_URL'),
        CLOB_URL: printed('CLOB_URL'),
        CLOB_WS_URL: printed('CLOB_WS_URL'),
        ROLES: 'api,sync,engine,worker',
        PORT: String(apiPort),
        HOST: '127.0.0.1',
        ALLOW_PRIVATE_URLS: 'true',
        LOG_LEVEL: 'warn',
      },
      /API token \(shown once\): \S+\n/,
    );
    children.push(service);
    const token = /API token \(shown once\): (\S+)/.exec(service.output)![1]!;
    await until(async () => (await fetch(`${api}/readyz`).catch(() => undefined))?.ok === true, 'the service to be ready');
    const picked = await pickMarkets(control, o.idleMarkets);
    // The watchlist is refused until the service's first catalog pass knows the events.
    await until(
      () => createCrossingRules(api, control, token, picked, 1, receiver.url).then(() => true, () => false),
      'the catalog sync',
    );

    const price = new Map(picked.map((p) => [p.marketId, 0.45]));
    const move = async (m: string) => {
      const next = price.get(m)! < 0.5 ? 0.55 : 0.45;
      price.set(m, next);
      await call(`${control}/markets/${m}/price`, { body: { price: next } });
    };
    // Warm-up: every market crossed until each rule's webhook arrived (the engine follows every token).
    await until(async () => {
      const before = receiver.received;
      for (const { marketId } of picked) await move(marketId);
      await sleep(1000);
      return receiver.received - before >= picked.length;
    }, 'the warm-up firings');
    await sleep(1000);

    count(true);
    const serviceCpuBefore = cpuSeconds(service.process.pid);
    const started = performance.now();
    for (let i = 0; i < o.idleMoves; i++) {
      const wait = started + i * o.idleSpacingMs - performance.now();
      if (wait > 0) await sleep(wait);
      await move(picked[i % picked.length]!.marketId);
    }
    const deadline = Date.now() + 10_000;
    while (received.size < o.idleMoves && Date.now() < deadline) await sleep(50);
    const serviceCpu = cpuSeconds(service.process.pid) - serviceCpuBefore;
    await sleep(500); // late duplicates
    count(false);
    for (const child of children.reverse().splice(0)) await stopChild(child);

    const latencies = Float64Array.from([...received.values()].map((t) => t[0]!)).sort();
    return {
      expected: o.idleMoves,
      received: received.size,
      lost: o.idleMoves - received.size,
      duplicated: [...received.values()].filter((t) => t.length > 1).length,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      max: latencies[latencies.length - 1] ?? NaN,
      stages: { detect: quantiles(stages.detect), write: quantiles(stages.write), deliver: quantiles(stages.deliver) },
      commit: await commitFloor(path.join(dataDir, 'floor'), o.commits),
      serviceCpuPerFiringMs: (serviceCpu * 1000) / Math.max(1, received.size),
    };
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `commits` one-row inserts, each its own transaction, on a PGlite folder opened as the service opens one. */
async function commitFloor(dataDir: string, commits: number): Promise<{ p50: number; p99: number; max: number }> {
  const database = await openDatabase({ dataDir });
  try {
    await database.db.execute(sql`create table floor (id bigserial primary key, at timestamptz not null default now(), note text)`);
    const times: number[] = [];
    for (let i = 0; i < commits; i++) {
      const started = performance.now();
      await database.db.transaction(async (tx) => {
        await tx.execute(sql`insert into floor (note) values (${`commit ${i}`})`);
      });
      times.push(performance.now() - started);
    }
    const sorted = Float64Array.from(times).sort();
    return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1] ?? NaN };
  } finally {
    await database.close();
  }
}

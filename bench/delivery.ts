import { spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { openDatabase, type Database } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { deliveries, notifications } from '../src/db/schema/index.js';
import { createSenders } from '../src/delivery/senders/index.js';
import { startDeliveryWorker, type DeliveryWorker } from '../src/delivery/worker.js';
import { createLogger } from '../src/logger.js';
import { postJson } from '../src/net/http-post.js';
import { insertAccountWithToken } from '../src/services/accounts/index.js';
import { newId } from '../src/services/ids.js';
import { backendCpu, runEndToEnd, runIdleEndToEnd } from './end-to-end.js';
import { Receiver } from './receiver.js';
import { fmt, machine, percentile, printTable } from './support.js';

// `npm run bench -- delivery`: the webhook outbox on PostgreSQL against a local receiver.
// 1. the receiver's own capacity (postJson loop, same agent and concurrency as the worker);
// 2. a queue of N deliveries drained by 1 and 2 in-process workers;
// 3. end to end: simulator price moves at --rate firings per second to the webhook received (see end-to-end.ts);
// 4. end to end on an idle feed with the default install (PGlite), beside the time of one PGlite commit.

export interface DeliveryBenchOptions {
  deliveries: number;
  concurrency: number;
  batch: number;
  baselineRequests: number;
  rate: number;
  seconds: number;
  maxWorkers: number;
  /** End to end: markets moved in turn, and Crossing subscriptions on each (a move fires that many). */
  markets: number;
  perMarket: number;
  /** End to end: 1 runs the engine and the delivery worker in separate service processes. */
  split: number;
  /** End to end: seconds at the full rate before the measured ones, not counted. */
  warmupSeconds: number;
  /** 1 runs each worker in a child process of its own (the receiver and writer stay in this one). */
  child: number;
  /** Idle feed on PGlite: moves one at a time (0 skips the run), ms between them, markets moved in turn. */
  idleMoves: number;
  idleSpacingMs: number;
  idleMarkets: number;
  /** Idle feed: PGlite commits timed for the floor. */
  commits: number;
}

const DEFAULTS: DeliveryBenchOptions = {
  deliveries: 100_000,
  concurrency: 64,
  batch: 1000,
  baselineRequests: 20_000,
  rate: 1000,
  seconds: 10,
  maxWorkers: 2,
  markets: 50,
  perMarket: 10,
  split: 0,
  warmupSeconds: 3,
  child: 0,
  idleMoves: 300,
  idleSpacingMs: 100,
  idleMarkets: 10,
  commits: 300,
};

export function deliveryBenchOptions(args: string[]): DeliveryBenchOptions {
  const options = { ...DEFAULTS };
  for (const arg of args) {
    const [key, value] = arg.replace(/^--/, '').split('=');
    if (key !== undefined && key in options && value !== undefined) options[key as keyof DeliveryBenchOptions] = Number(value);
  }
  return options;
}

function payloadFor(i: number, userId: string) {
  return {
    type: 'price_notification',
    userId,
    createdAt: new Date().toISOString(),
    subscriptionId: 'bench',
    watchlistId: 'bench',
    marketId: String(500_000 + (i % 1000)),
    polymarketSlug: `bench-market-${i % 1000}`,
    question: 'Will the bench pass?',
    outcome: 'Yes',
    price: 0.5,
    previousPrice: 0.49,
    ruleType: 'Crossing Up',
    thresholdPercent: 50,
  };
}

async function baseline(receiver: Receiver, o: DeliveryBenchOptions): Promise<number> {
  receiver.reset();
  let next = 0;
  const body = JSON.stringify(payloadFor(0, 'bench'));
  const started = performance.now();
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (next < o.baselineRequests) {
        const i = next++;
        const res = await postJson(receiver.url, body, {
          allowPrivate: true,
          timeoutMs: 5000,
          headers: { 'user-agent': 'Oddswatch-Webhook/1.0', 'webhook-id': `b${i}`, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) },
        });
        if (res.statusCode !== 200) throw new Error(`baseline answer ${res.statusCode}`);
      }
    }),
  );
  return o.baselineRequests / ((performance.now() - started) / 1000);
}

/** N notifications with one Webhook delivery each, written like writeNotification in bulk transactions. */
async function fillQueue(database: Database, accountId: string, url: string, o: DeliveryBenchOptions) {
  await database.db.execute(sql`truncate notifications cascade`);
  for (let start = 0; start < o.deliveries; start += o.batch) {
    const count = Math.min(o.batch, o.deliveries - start);
    const rows = Array.from({ length: count }, (_, k) => ({
      id: newId(),
      accountId,
      subscriptionId: null,
      type: 'price_notification' as const,
      payload: payloadFor(start + k, accountId),
      dedupeKey: `bench:${start + k}:${newId()}`,
    }));
    await database.db.transaction(async (tx) => {
      await tx.insert(notifications).values(rows);
      await tx.insert(deliveries).values(
        rows.map((n) => ({
          id: newId(),
          notificationId: n.id,
          position: 0,
          channelType: 'Webhook' as const,
          settings: { webhookUrl: url },
          status: 'PENDING' as const,
        })),
      );
    });
  }
}

async function createdAtById(database: Database): Promise<Map<string, number>> {
  const rows = await database.rows<{ id: string; at: number }>(
    sql`select id, extract(epoch from created_at)::float8 * 1000 as at from notifications`,
  );
  return new Map(rows.map((r) => [r.id, Number(r.at)]));
}

interface Tally {
  lost: number;
  duplicated: number;
  p50: number;
  p99: number;
  max: number;
}

function tally(receiver: Receiver, enqueuedAt: Map<string, number>): Tally {
  let lost = 0;
  let duplicated = 0;
  const latencies: number[] = [];
  for (const [id, at] of enqueuedAt) {
    const times = receiver.seen.get(id);
    if (!times) {
      lost++;
      continue;
    }
    if (times.length > 1) duplicated++;
    latencies.push(times[0]! - at);
  }
  const sorted = Float64Array.from(latencies).sort();
  return { lost, duplicated, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1] ?? NaN };
}

const LOGGER = createLogger('warn');
const WORKER_CONFIG = { WEBHOOK_RETRY_DELAY_MS: 1000, PUBLIC_URL: undefined, WEBHOOK_SECRET_GRACE_MS: 86_400_000, ENDPOINT_DISABLE_AFTER_MS: 86_400_000, ENDPOINT_DISABLE_MIN_NOTIFICATIONS: 10 };

async function startWorkers(databaseUrl: string, count: number, o: DeliveryBenchOptions): Promise<() => Promise<void>> {
  if (o.child) {
    const children = await Promise.all(
      Array.from({ length: count }, async () => {
        const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL('./delivery-worker.ts', import.meta.url))], {
          env: { ...process.env, BENCH_DATABASE_URL: databaseUrl, BENCH_CONCURRENCY: String(o.concurrency) },
          stdio: ['pipe', 'pipe', 'inherit'],
        });
        await new Promise<void>((resolve, reject) => {
          child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
          child.once('exit', (code) => reject(new Error(`worker child exited with ${code}`)));
        });
        return child;
      }),
    );
    return async () => {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              child.once('exit', () => resolve());
              child.stdin.end();
            }),
        ),
      );
    };
  }
  const handles: { database: Database; worker: DeliveryWorker }[] = [];
  const senders = createSenders({ allowPrivateUrls: true, timeoutMs: 5000 });
  for (let w = 0; w < count; w++) {
    const database = await openDatabase({ databaseUrl, maxConnections: 10 });
    const worker = await startDeliveryWorker({
      database,
      senders,
      logger: LOGGER,
      config: WORKER_CONFIG,
      concurrency: o.concurrency,
      workerId: `bench-${w}`,
    });
    handles.push({ database, worker });
  }
  return async () => {
    for (const h of handles) await h.worker.stop();
    for (const h of handles) await h.database.close();
  };
}

async function pendingCount(database: Database): Promise<number> {
  const [row] = await database.rows<{ n: number }>(sql`select count(*)::int as n from deliveries where status <> 'SENT'`);
  return row?.n ?? 0;
}

async function queueRun(database: Database, databaseUrl: string, receiver: Receiver, accountId: string, workers: number, o: DeliveryBenchOptions) {
  await fillQueue(database, accountId, receiver.url, o);
  const enqueuedAt = await createdAtById(database);
  receiver.reset();
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const dbCpuBefore = await backendCpu(database);
  const stop = await startWorkers(databaseUrl, workers, o);
  // The count reads the whole table: asked every 100 ms throughout a run of 100,000 it took a fifth
  // of the PostgreSQL CPU the run measures, and half of it once claims were cheap (seventh round,
  // pg_stat_statements), on the cores the workers run on. So the database is asked once a second
  // until the receiver has had every delivery, then every 100 ms until every one is recorded SENT
  // (the end of the run, as before).
  let last = -1;
  let lastChange = performance.now();
  for (let tick = 1; ; tick++) {
    await new Promise((r) => setTimeout(r, 100));
    if (receiver.seen.size < o.deliveries && tick % 10 !== 0) continue;
    const pending = await pendingCount(database);
    if (pending === 0) break;
    if (pending !== last) [last, lastChange] = [pending, performance.now()];
    else if (performance.now() - lastChange > 10_000) break; // 10 s without progress: report what is left
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  let dbCpu = 0;
  for (const [pid, seconds] of await backendCpu(database)) dbCpu += seconds - (dbCpuBefore.get(pid) ?? 0);
  await stop();
  const sent = o.deliveries - (await pendingCount(database));
  // CPU of this process (in-process workers and the receiver) per delivery: steadier than the rate
  // on a shared machine, where the rate follows whatever else runs.
  const cpuUsPerDelivery = (cpu.user + cpu.system) / Math.max(1, sent);
  // The database's side: its backends serving this database (the workers' pools, this process's).
  const dbCpuUsPerDelivery = (dbCpu * 1e6) / Math.max(1, sent);
  return { workers, seconds, rate: sent / seconds, sent, cpuUsPerDelivery, dbCpuUsPerDelivery, ...tally(receiver, enqueuedAt) };
}

export async function runDeliveryBench(o: DeliveryBenchOptions): Promise<void> {
  const baseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const dbName = `oddswatch_bench_${process.pid}`;
  const url = new URL(baseUrl);
  url.pathname = `/${dbName}`;
  const databaseUrl = url.toString();
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  console.log(`Machine: ${machine()}; database ${dbName} on ${new URL(baseUrl).host}`);
  console.log(
    `Options: deliveries=${o.deliveries} concurrency=${o.concurrency} batch=${o.batch} baselineRequests=${o.baselineRequests} rate=${o.rate} seconds=${o.seconds} maxWorkers=${o.maxWorkers} markets=${o.markets} perMarket=${o.perMarket} split=${o.split} warmupSeconds=${o.warmupSeconds} child=${o.child} idleMoves=${o.idleMoves} idleSpacingMs=${o.idleSpacingMs} idleMarkets=${o.idleMarkets} commits=${o.commits}`,
  );
  const receiver = new Receiver();
  await receiver.start();
  const database = await openDatabase({ databaseUrl, maxConnections: 20 });
  try {
    await migrate(database);
    const account = await insertAccountWithToken(database.db, { name: 'bench' });

    const baseRate = await baseline(receiver, o);
    console.log(`receiver baseline: ${fmt(baseRate)} requests/s (${fmt(o.baselineRequests)} postJson, concurrency ${o.concurrency})`);

    const rows: string[][] = [];
    for (let workers = 1; workers <= o.maxWorkers; workers++) {
      const r = await queueRun(database, databaseUrl, receiver, account.userId, workers, o);
      console.log(
        `queue, ${workers} worker(s): ${fmt(r.rate)} deliveries/s over ${r.seconds.toFixed(1)} s; CPU per delivery: ${fmt(r.cpuUsPerDelivery)} µs in this process${o.child ? ' (the receiver only)' : ' (workers and receiver)'}, ${fmt(r.dbCpuUsPerDelivery)} µs in PostgreSQL`,
      );
      rows.push([
        `${fmt(o.deliveries)} queued, ${workers} worker(s) × ${o.concurrency}${o.child ? ' (child processes)' : ' (in-process)'}`,
        `${fmt(r.rate)} deliveries/s (${r.seconds.toFixed(1)} s)`,
        `${fmt(r.p50)} ms / ${fmt(r.p99)} ms`,
        String(r.lost),
        String(r.duplicated),
        `${((r.rate / baseRate) * 100).toFixed(0)}%`,
      ]);
    }
    if (o.rate > 0) {
      const e = await runEndToEnd(database, databaseUrl, o);
      console.log(`end to end: ${fmt(e.received)} of ${fmt(e.expected)} webhooks received, p50 ${fmt(e.p50, 1)} ms, p99 ${fmt(e.p99, 1)} ms`);
      for (const [stage, q] of Object.entries(e.stages)) console.log(`  ${stage}: p50 ${fmt(q.p50, 1)} ms, p99 ${fmt(q.p99, 1)} ms`);
      const { cpu } = e;
      console.log(
        `  CPU over ${cpu.elapsedSeconds.toFixed(1)} s: machine ${cpu.machine.toFixed(1)} s of ${(cpu.elapsedSeconds * os.cpus().length).toFixed(1)}; bench (driver + receiver) ${cpu.bench.toFixed(1)} s; ${cpu.children.map((c) => `${c.name} ${c.seconds.toFixed(1)} s`).join('; ')}; PostgreSQL backends of the bench database ${cpu.database.toFixed(1)} s`,
      );
      console.log(
        `  CPU per firing: service ${fmt((cpu.children.filter((c) => c.name.startsWith('service')).reduce((sum, c) => sum + c.seconds, 0) * 1e6) / e.expected)} µs, PostgreSQL ${fmt((cpu.database * 1e6) / e.expected)} µs`,
      );
      rows.push([
        `end to end, simulator price move → webhook received, ${fmt(o.rate)} firings/s for ${o.seconds} s after ${o.warmupSeconds} s of warm-up (${fmt(e.movesPerSecond)} moves/s × ${o.perMarket} subscriptions, ${o.markets} markets; ${o.split ? 'engine and worker in separate processes' : 'one service process'})`,
        `${fmt(e.expected)} firings${e.lateMoves > 0 ? `, ${e.lateMoves} moves late` : ''}`,
        `${fmt(e.p50, 1)} ms / ${fmt(e.p99, 1)} ms (max ${fmt(e.max, 1)})`,
        String(e.lost),
        String(e.duplicated),
        '',
      ]);
    }
    if (o.idleMoves > 0) {
      const idle = await runIdleEndToEnd(o);
      console.log(`idle feed, PGlite: ${fmt(idle.received)} of ${fmt(idle.expected)} webhooks received, p50 ${fmt(idle.p50, 1)} ms, p99 ${fmt(idle.p99, 1)} ms`);
      for (const [stage, q] of Object.entries(idle.stages)) console.log(`  ${stage}: p50 ${fmt(q.p50, 1)} ms, p99 ${fmt(q.p99, 1)} ms`);
      console.log(`  PGlite commit of one row: p50 ${fmt(idle.commit.p50, 1)} ms, p99 ${fmt(idle.commit.p99, 1)} ms`);
      console.log(`  service CPU per firing (from the first move until the last webhook): ${fmt(idle.serviceCpuPerFiringMs, 2)} ms`);
      rows.push([
        `end to end, idle feed, PGlite (default install): one move every ${o.idleSpacingMs} ms over ${o.idleMarkets} markets, one rule each, one service process`,
        `${fmt(idle.expected)} firings`,
        `${fmt(idle.p50, 1)} ms / ${fmt(idle.p99, 1)} ms (max ${fmt(idle.max, 1)})`,
        String(idle.lost),
        String(idle.duplicated),
        '',
      ]);
      rows.push([`floor: one-row PGlite commit (${fmt(o.commits)} in turn)`, '', `${fmt(idle.commit.p50, 1)} ms / ${fmt(idle.commit.p99, 1)} ms (max ${fmt(idle.commit.max, 1)})`, '', '', '']);
    }
    rows.push([`receiver baseline (postJson loop × ${o.concurrency})`, `${fmt(baseRate)} requests/s`, '', '', '', '100%']);
    console.log();
    printTable(['Run', 'Throughput', 'Latency p50 / p99', 'Lost', 'Duplicated', 'of baseline'], rows);
  } finally {
    await receiver.close();
    await database.close();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
}

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { call, cpuProfileArgs, fmt, freePort, machine, printTable, serviceArgs, stopChild } from './support.js';

// The REST hot path under load: autocannon in this process against the service as `npm start`
// runs it (`node dist/main.js` with npm start's node options: the same middleware, request logging, auth and rate limits) in a
// child process, beside an express hello-world in a child process of its own (the same layout).
// The rate limits are raised to their maximum (1,000,000 a minute) so the bench measures the
// service rather than its 429s; everything else is the default configuration.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/test';

type AutocannonResult = Awaited<ReturnType<typeof autocannon>>;

export interface RestBenchOptions {
  seconds: number;
  connections: number;
  rules: number;
  /** pglite, postgres, or both (comma separated). */
  databases: string[];
  /** Only the sequential creates (`--only=creates`): no hello-world, no load runs. */
  createsOnly: boolean;
}

export function restBenchOptions(args: string[]): RestBenchOptions {
  const option = (name: string, fallback: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
  return {
    seconds: Number(option('seconds', '10')),
    connections: Number(option('connections', '32')),
    rules: Number(option('rules', '100')),
    databases: option('databases', 'pglite,postgres').split(','),
    createsOnly: option('only', '') === 'creates',
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Child {
  process: ChildProcess;
  output: string;
  /** Bytes the process wrote to stdout (its log), counted while `counting`. */
  logBytes: number;
  counting: boolean;
}

/** Spawns `node args`; its log goes to `logFile` as an operator's would go to a file. */
function startChild(args: string[], env: Record<string, string>, logFile: string): Child {
  const child: Child = {
    process: spawn(process.execPath, [...cpuProfileArgs(), ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }),
    output: '',
    logBytes: 0,
    counting: false,
  };
  const file = createWriteStream(logFile);
  child.process.stdout!.on('data', (chunk: Buffer) => {
    if (child.output.length < 20_000) child.output += chunk.toString();
    if (child.counting) child.logBytes += chunk.length;
    file.write(chunk);
  });
  child.process.stderr!.on('data', (chunk: Buffer) => (child.output += chunk.toString()));
  child.process.once('exit', () => file.end());
  return child;
}

async function until<T>(check: () => Promise<T | undefined>, what: string, child: Child, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (child.process.exitCode !== null) throw new Error(`the process exited while waiting for ${what}:\n${child.output}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${child.output}`);
    await sleep(100);
  }
}

interface Row {
  name: string;
  result: AutocannonResult;
  logBytesPerRequest?: number;
  /** CPU time the server process spent per request (user + system): steadier than req/s on a shared machine. */
  cpuMsPerRequest?: number;
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

async function load(
  url: string,
  o: RestBenchOptions,
  request: { method?: string; token?: string; body?: unknown; bodies?: () => unknown },
  server: Child,
): Promise<{ result: AutocannonResult; cpuMsPerRequest: number; logBytesPerRequest: number }> {
  const { bodies } = request;
  const options = {
    url,
    connections: o.connections,
    // Long enough that a slow answer is measured as slow rather than dropped as an error.
    timeout: 60,
    method: request.method ?? (request.body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json', ...(request.token ? { authorization: `Bearer ${request.token}` } : {}) },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    // A body of its own for each request (`bodies`), for figures that caches must not flatter.
    ...(bodies ? { requests: [{ setupRequest: (req: object) => ({ ...req, body: JSON.stringify(bodies()) }) }] } : {}),
  };
  // A short warm-up (JIT, connection pools, caches), not counted.
  await autocannon({ ...options, duration: Math.min(2, o.seconds) });
  const cpuBefore = cpuSeconds(server.process.pid);
  server.logBytes = 0;
  server.counting = true;
  const result = await autocannon({ ...options, duration: o.seconds });
  server.counting = false;
  if (result.non2xx > 0) throw new Error(`${options.method} ${url}: ${result.non2xx} non-2xx answers`);
  const cpuMsPerRequest = ((cpuSeconds(server.process.pid) - cpuBefore) * 1000) / result.requests.total;
  return { result, cpuMsPerRequest, logBytesPerRequest: server.logBytes / result.requests.total };
}

const HELLO = `
import express from 'express';
const app = express();
app.get('/', (_req, res) => void res.json({ hello: 'world' }));
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

async function helloWorld(o: RestBenchOptions, dir: string): Promise<Row> {
  const port = await freePort();
  const child = startChild(['--input-type=module', '-e', HELLO], { PORT: String(port) }, path.join(dir, 'hello.log'));
  try {
    await until(async () => (child.output.includes('listening') ? true : undefined), 'the hello-world server', child);
    const { result, cpuMsPerRequest } = await load(`http://127.0.0.1:${port}/`, o, {}, child);
    console.log(`baseline: express hello-world: ${fmt(result.requests.average, 0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
    return { name: 'baseline: express hello-world, GET /', result, cpuMsPerRequest };
  } finally {
    await stopChild(child);
  }
}

interface Market {
  eventId: string;
  marketId: string;
}

async function serviceRun(o: RestBenchOptions, dir: string, kind: 'pglite' | 'postgres', databaseUrl: string): Promise<{ rows: Row[]; createsPerSecond: number; createCpuMs: number }> {
  await mkdir(dir, { recursive: true });
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const child = startChild(
    serviceArgs(),
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: kind === 'postgres' ? databaseUrl : '',
      DATA_DIR: path.join(dir, 'data'),
      VENUE: 'simulator',
      SIMULATOR_PORT: '0',
      SIMULATOR_RANDOM_WALK: 'false',
      RATE_LIMIT_PER_MINUTE: '1000000',
      SEARCH_RATE_LIMIT_PER_MINUTE: '1000000',
      MAX_SUBSCRIPTIONS: String(Math.max(1000, o.rules * 2)),
      LOG_LEVEL: 'info',
    },
    path.join(dir, `service-${kind}.log`),
  );
  try {
    const token = await until(async () => /API token \(shown once\): (\S+)/.exec(child.output)?.[1], 'the first account token', child);
    await until(async () => ((await fetch(`${api}/readyz`)).ok ? true : undefined), 'the service to be ready', child);
    // Open markets from the catalog the sync stored (found through the public search).
    const markets = await until(
      async () => {
        const tags = ['politics', 'crypto', 'sports', 'economy', 'tech', 'world'].map((text) => ({ text }));
        const found = (await call(`${api}/search/tag-slugs?limit=200`, { body: { tags } })) as unknown as { id: string; markets: { id: string }[] }[];
        const all: Market[] = found.flatMap((e) => e.markets.map((m) => ({ eventId: e.id, marketId: m.id })));
        return all.length >= 20 ? all : undefined;
      },
      'the catalog sync',
      child,
    );
    const watchlist = (await call(`${api}/watchlists`, { token, body: { name: 'rest bench', events: Object.fromEntries(markets.map((m) => [m.eventId, {}])) } })) as {
      watchList: { id: string };
    };
    const started = performance.now();
    const cpuBefore = cpuSeconds(child.process.pid);
    for (let i = 0; i < o.rules; i++) {
      const m = markets[i % markets.length]!;
      await call(`${api}/subscriptions`, {
        token,
        body: {
          watchlistId: watchlist.watchList.id,
          subscriptionScope: 'Market',
          eventId: m.eventId,
          marketId: m.marketId,
          subscriptionTypeConfig: { type: 'Crossing', config: { params: { threshold_percent: 5 + (i % 90) } } },
          triggerType: 'Recurring',
          triggerInterval: '5m',
          channels: [{ type: 'In App' }],
        },
      });
    }
    const createsPerSecond = o.rules / ((performance.now() - started) / 1000);
    const createCpuMs = ((cpuSeconds(child.process.pid) - cpuBefore) * 1000) / o.rules;
    console.log(`${kind}: POST /subscriptions, sequential: ${fmt(createsPerSecond, 0)}/s, ${fmt(createCpuMs, 2)} CPU ms each`);

    const rows: Row[] = [];
    if (o.createsOnly) return { rows, createsPerSecond, createCpuMs };
    const measured = async (name: string, url: string, request: { method?: string; token?: string; body?: unknown; bodies?: () => unknown }) => {
      const { result, cpuMsPerRequest, logBytesPerRequest } = await load(url, o, request, child);
      rows.push({ name: `${kind}: ${name}`, result, cpuMsPerRequest, logBytesPerRequest });
      console.log(`${kind}: ${name}: ${fmt(result.requests.average, 0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${fmt(cpuMsPerRequest, 2)} CPU ms/request`);
    };
    const listed = (await call(`${api}/subscriptions`, { token })) as { subscriptions: unknown[] };
    if (listed.subscriptions.length !== o.rules) throw new Error(`GET /subscriptions listed ${listed.subscriptions.length}, expected ${o.rules}`);
    await measured(`GET /subscriptions (${o.rules} rules)`, `${api}/subscriptions`, { token });
    await measured('GET /me', `${api}/me`, { token });
    await measured('POST /search "bitcoin"', `${api}/search?limit=10`, { body: { keyphrases: [{ text: 'bitcoin' }] } });
    const sets = distinctSearches();
    let next = 0;
    await measured(`POST /search, ${fmt(sets.length, 0)} distinct sets cycled (misses)`, `${api}/search?limit=10`, {
      method: 'POST',
      bodies: () => sets[next++ % sets.length],
    });
    await measured('GET /catalog/search?q=bitc', `${api}/catalog/search?q=bitc`, {});
    return { rows, createsPerSecond, createCpuMs };
  } finally {
    await stopChild(child);
  }
}

// Words of the simulator's catalog and others: pairs of them, ordered, under both operators.
const SEARCH_WORDS = (
  'bitcoin ethereum solana election president senate house governor fed rates inflation recession ' +
  'oil gold price above below march june december world cup final champion win nba nfl league ' +
  'ai model launch apple tesla stock market war ceasefire treaty summit vote bill court ruling ' +
  'storm record temperature'
).split(' ');

/**
 * Thousands of distinct keyphrase sets, more than the search answer cache holds (1,000, oldest
 * first): cycled through, every request is a miss, the general case of distinct users' searches.
 */
function distinctSearches(): unknown[] {
  const sets: unknown[] = [];
  for (const searchMatchOperator of ['OR', 'AND'])
    for (const a of SEARCH_WORDS) for (const b of SEARCH_WORDS) if (a !== b) sets.push({ keyphrases: [{ text: a }, { text: b }], searchMatchOperator });
  return sets;
}

async function withScratchDatabase<T>(baseUrl: string, run: (url: string) => Promise<T>): Promise<T> {
  const name = `oddswatch_bench_rest_${process.pid}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${name}`);
  await admin.unsafe(`create database ${name}`);
  try {
    const url = new URL(baseUrl);
    url.pathname = `/${name}`;
    return await run(url.toString());
  } finally {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/**
 * `npm run bench -- rest [--seconds=10] [--connections=32] [--rules=100] [--databases=pglite,postgres] [--only=creates]`:
 * GET /subscriptions (with `rules` subscriptions), GET /me, public POST /search and GET
 * /catalog/search under `connections` concurrent connections; the sequential POST /subscriptions
 * rate while creating the rules; the express hello-world baseline. PostgreSQL runs in a scratch
 * database on DATABASE_URL's server (else the test server), dropped at the end. `--only=creates`
 * runs the sequential creates alone (A/B runs of the create path).
 */
export async function runRestBench(o: RestBenchOptions): Promise<void> {
  const built = spawnSync(process.execPath, ['bin/ensure-build.js'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('build failed');
  const dir = await mkdtemp(path.join(tmpdir(), 'oddswatch-bench-rest-'));
  const rows: Row[] = [];
  const creates: string[][] = [];
  try {
    if (!o.createsOnly) rows.push(await helloWorld(o, dir));
    for (const kind of o.databases) {
      if (kind !== 'pglite' && kind !== 'postgres') throw new Error(`unknown database ${kind}: pglite or postgres`);
      const run = (url: string) => serviceRun(o, path.join(dir, kind), kind, url);
      const result = kind === 'pglite' ? await run('') : await withScratchDatabase(process.env.DATABASE_URL || DEFAULT_PG, run);
      rows.push(...result.rows);
      creates.push([`${kind}: POST /subscriptions, sequential (${o.rules})`, fmt(result.createsPerSecond, 0), fmt(result.createCpuMs, 2)]);
    }
    console.log(`machine: ${machine()}; ${o.connections} connections, ${o.seconds} s each after a 2 s warm-up; node with npm start's options (package.json), every role, VENUE=simulator`);
    printTable(
      ['case', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'server CPU ms/request', 'log bytes/request'],
      rows.map((r) => [
        r.name,
        fmt(r.result.requests.average, 0),
        fmt(r.result.latency.p50, 0),
        fmt(r.result.latency.p99, 0),
        fmt(r.result.latency.max, 0),
        String(r.result.errors),
        r.cpuMsPerRequest === undefined ? '' : fmt(r.cpuMsPerRequest, 2),
        r.logBytesPerRequest === undefined ? '' : fmt(r.logBytesPerRequest, 0),
      ]),
    );
    console.log('');
    printTable(['case', 'creates/s', 'server CPU ms each'], creates);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

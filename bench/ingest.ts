import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ClientResult } from './ingest-client.js';
import { recordFeed, startFeedServer, type FeedServer } from './ingest-feed.js';
import { cpuProfileArgs, fmt, machine, mb, printTable } from './support.js';

export interface IngestBenchOptions {
  markets: number;
  rules: number;
  /** price_change messages per recorded cycle. */
  changes: number;
  cycles: number;
  /** Runs of each side, alternating; the table shows each run and the worse of each side. */
  runs: number;
  seed: number;
}

const DEFAULTS: IngestBenchOptions = { markets: 1000, rules: 1000, changes: 200_000, cycles: 5, runs: 2, seed: 42 };
const SIDES = ['library', 'oddswatch', 'floor'] as const;
type Side = (typeof SIDES)[number];
const NAMES: Record<Side, string> = {
  library: '@nevuamarkets/poly-websockets 1.0.2 (baseline)',
  oddswatch: 'Oddswatch engine path',
  floor: 'floor: ws + JSON.parse of each frame, nothing else',
};

export function ingestBenchOptions(args: string[]): IngestBenchOptions {
  const options = { ...DEFAULTS };
  for (const arg of args) {
    const [key, value] = arg.replace(/^--/, '').split('=');
    if (key !== undefined && key in options && value !== undefined) options[key as keyof IngestBenchOptions] = Number(value);
  }
  return options;
}

/** Starts one side in its own process, replays the feed to it once it follows every token, and returns what it measured. */
async function runSide(side: Side, server: FeedServer, o: IngestBenchOptions, messages: number): Promise<ClientResult> {
  const entry = fileURLToPath(new URL('./ingest-client.ts', import.meta.url));
  const child: ChildProcess = spawn(
    process.execPath,
    [...process.execArgv, ...cpuProfileArgs(), entry, side, server.wsUrl, server.httpUrl, String(o.markets), String(o.rules), String(o.seed)],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, LOG_LEVEL: 'warn' } },
  );
  // Every message is kept from the start: the child may say "ready" before the server's subscribed signal.
  const seen = new Map<string, Record<string, unknown>>();
  const waiters = new Map<string, (msg: Record<string, unknown>) => void>();
  child.on('message', (msg: Record<string, unknown>) => {
    for (const key of Object.keys(msg)) {
      seen.set(key, msg);
      waiters.get(key)?.(msg);
    }
  });
  let exitCode: number | null | undefined;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => {
      exitCode = code;
      reject(new Error(`${side} client exited with ${code}`));
    }),
  );
  exited.catch(() => {});
  const next = (key: string) =>
    Promise.race([exited, new Promise<Record<string, unknown>>((resolve) => (seen.has(key) ? resolve(seen.get(key)!) : waiters.set(key, resolve)))]);
  try {
    const connection = await Promise.race([exited, server.nextSubscribed()]);
    await next('ready');
    const started = next('started');
    child.send({ go: true, messages });
    await started;
    const result = next('result');
    await connection.replay(o.cycles);
    const measured = (await result).result as ClientResult;
    await exited.catch(() => {});
    return measured;
  } finally {
    if (exitCode === undefined) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    }
  }
}

/**
 * `npm run bench -- ingest`: venue WebSocket messages turned into displayed prices and evaluated
 * against rules, Oddswatch's engine path beside `@nevuamarkets/poly-websockets` on the same frames
 * from the same local server, each side in a process of its own.
 */
export async function runIngestBench(options: Partial<IngestBenchOptions> = {}): Promise<void> {
  const o = { ...DEFAULTS, ...options };
  const recordStart = process.hrtime.bigint();
  const feed = recordFeed({ markets: o.markets, changes: o.changes, seed: o.seed });
  const messages = feed.messagesPerCycle * o.cycles;
  console.log(`\nFeed ingest: ${fmt(o.markets)} markets (${fmt(o.markets * 2)} tokens), ${fmt(o.rules)} rules, ${fmt(messages)} messages in ${fmt(feed.framesPerCycle * o.cycles)} frames (${o.cycles} cycles)`);
  console.log(`machine: ${machine()}`);
  console.log(
    `feed: recorded in ${(Number(process.hrtime.bigint() - recordStart) / 1e9).toFixed(1)} s; per cycle ${fmt(feed.messagesPerCycle)} messages (${fmt(o.markets * 2)} book, the rest price_change), ${fmt(feed.framesPerCycle)} frames, ${fmt(feed.bytesPerCycle / feed.framesPerCycle)} bytes per frame on average, ${fmt(feed.arrayFrames * 100)}% of frames arrays of 2-8 messages`,
  );
  const server = await startFeedServer(feed);
  const results: Record<Side, ClientResult[]> = { library: [], oddswatch: [], floor: [] };
  try {
    for (let run = 0; run < o.runs; run++) {
      for (const side of SIDES) {
        const r = await runSide(side, server, o, messages);
        results[side].push(r);
        console.log(`run ${run + 1}, ${side}: ${fmt(r.messages / r.seconds)} msgs/s, ${fmt(r.messages / r.cpuSeconds)} msgs/CPU-s, RSS ${mb(r.rssBytes)}`);
      }
    }
  } finally {
    await server.close();
  }
  const worse = (side: Side) => results[side].reduce((a, b) => (b.messages / b.seconds < a.messages / a.seconds ? b : a));
  const row = (name: string, r: ClientResult, base: ClientResult) => [
    name,
    fmt(r.messages / r.seconds),
    fmt(r.messages / r.cpuSeconds),
    `${fmt((r.messages / r.seconds) / (base.messages / base.seconds), 2)}x / ${fmt((r.messages / r.cpuSeconds) / (base.messages / base.cpuSeconds), 2)}x`,
    `${mb(r.rssBytes)} (peak ${mb(r.maxRssBytes)})`,
    fmt(r.prices),
    fmt(r.firings),
  ];
  const base = worse('library');
  console.log(`\nworse of ${o.runs} runs per side (by msgs/s):`);
  printTable(['client', 'msgs/s', 'msgs/CPU-s', 'vs baseline (msgs/s / per CPU-s)', 'RSS at end', 'price updates', 'firings'], [
    row(NAMES.library, base, base),
    row(NAMES.oddswatch, worse('oddswatch'), base),
    row(NAMES.floor, worse('floor'), base),
  ]);
  const ours = worse('oddswatch');
  console.log(`Oddswatch's store (in place of the database writes) was given ${fmt(ours.written.firings)} firings, ${fmt(ours.written.prices)} saved prices, ${fmt(ours.written.samples)} minute samples.`);
  const ok = (ours.messages / ours.seconds) >= 3 * (base.messages / base.seconds) && ours.messages / ours.cpuSeconds >= 3 * (base.messages / base.cpuSeconds);
  console.log(`target: >= 3x the library in msgs/s and msgs/CPU-s ${ok ? 'met' : 'MISSED'}`);
}

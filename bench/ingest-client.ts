// One side of `npm run bench -- ingest`, in a process of its own so its CPU time and RSS are its own.
// argv: <oddswatch|library> <ws url> <http url> <markets> <rules> <seed>. Over IPC: sends
// {ready} once every token's book arrived, waits for {go, messages}, answers {started}, and sends
// the result once it has handled that many messages.
import { createRequire } from 'node:module';
import { PRICE_RULE_TYPES, TRIGGER_INTERVAL_MS, type TriggerInterval } from '../src/domain/enums.js';
import { RuleIndex } from '../src/engine/index.js';
import { CROSSING_STEP, isLevelRule, thresholdFraction, type CompiledRule } from '../src/engine/rules.js';
import type { Database } from '../src/db/client.js';
import { createLogger } from '../src/logger.js';
import { FiringWriter, type FiringStore } from '../src/runner/firing-writer.js';
import { PriceIntake } from '../src/runner/price-intake.js';
import { StreamPrices } from '../src/runner/prices-from-stream.js';
import { TokenRecords } from '../src/runner/token-records.js';
import { PriceReferences } from '../src/runner/references.js';
import { SerialQueue } from '../src/runner/serial-queue.js';
import { TokenPriceStore } from '../src/runner/token-prices.js';
import { TradeRunner } from '../src/runner/trade-rules.js';
import { createMarketStream } from '../src/venue/clob/market-socket.js';
import { createClobRestClient } from '../src/venue/clob/rest.js';
import { feedMarkets, type FeedMarket } from './ingest-feed.js';
import { prng } from './support.js';

export interface ClientResult {
  messages: number;
  seconds: number;
  cpuSeconds: number;
  /** RSS when the last message was handled, and the process's peak. */
  rssBytes: number;
  maxRssBytes: number;
  /** Displayed prices that changed, firings (the library: of its price updates; Oddswatch: written to the store), and what the store was given. */
  prices: number;
  firings: number;
  written: { firings: number; prices: number; samples: number };
}

type Side = 'oddswatch' | 'library' | 'floor';
const [side, wsUrl, httpUrl, marketCount, ruleCount, seed] = process.argv.slice(2) as [Side, string, string, string, string, string];
const markets = feedMarkets(Number(marketCount), Number(seed));
const tokenCount = markets.length * 2;
const send = (msg: unknown) => process.send!(msg);

const INTERVALS: Array<[TriggerInterval, number]> = [['0m', 5], ['5m', 15], ['30m', 40], ['60m', 15], ['6h', 10], ['12h', 5], ['24h', 10]];

/**
 * The rules both sides evaluate: on random markets' Yes tokens, the six price types evenly,
 * thresholds within ±10 points of the market's starting price (so the feed crosses some of them),
 * the engine bench's interval mix, 15% One Time.
 */
function benchRules(list: FeedMarket[], count: number): CompiledRule[] {
  const random = prng(Number(seed) + 7);
  const pick = () => {
    let w = random() * 100;
    for (const [name, weight] of INTERVALS) if ((w -= weight) < 0) return name;
    return '24h';
  };
  return Array.from({ length: count }, (_, ruleId) => {
    const m = list[Math.floor(random() * list.length)]!;
    const type = PRICE_RULE_TYPES[Math.floor(random() * PRICE_RULE_TYPES.length)]!;
    const percent = Math.min(99, Math.max(1, m.midCents + Math.round((random() - 0.5) * 20)));
    const interval = pick();
    return {
      ruleId,
      subscriptionId: `00000000-0000-4000-8000-${String(ruleId).padStart(12, '0')}`,
      marketId: String(500_000 + list.indexOf(m)),
      token: m.yes,
      type,
      threshold: type === CROSSING_STEP ? [0.01, 0.02, 0.05][ruleId % 3]! : thresholdFraction(percent),
      oneTime: random() < 0.15,
      intervalMs: isLevelRule(type) && interval === '0m' ? TRIGGER_INTERVAL_MS['5m'] : TRIGGER_INTERVAL_MS[interval],
      expiresAtMs: null,
      enabled: true,
    };
  });
}

let handled = 0;
let prices = 0;
let firings = 0;
const written = { firings: 0, prices: 0, samples: 0 };
let books = 0;
let target = Infinity;
let started: { at: bigint; cpu: NodeJS.CpuUsage } | undefined;

function onReady(): void {
  if (++books === tokenCount) send({ ready: true });
}

function counted(n: number): void {
  if (started === undefined) return;
  handled += n;
  // The rest of this frame's work runs before the check-immediate: the clock stops after it.
  if (handled >= target) {
    target = Infinity;
    setImmediate(finish);
  }
}

function finish(): void {
  const seconds = Number(process.hrtime.bigint() - started!.at) / 1e9;
  const cpu = process.cpuUsage(started!.cpu);
  const result: ClientResult = {
    messages: handled,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    rssBytes: process.memoryUsage.rss(),
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    prices,
    firings,
    written,
  };
  // Exiting on its own (not killed) lets `--cpu-prof` write its profile.
  process.send!({ result }, () => process.exit(0));
}

process.on('message', (msg: { go?: boolean; messages?: number }) => {
  if (!msg.go) return;
  handled = 0;
  prices = 0;
  firings = 0;
  Object.assign(written, { firings: 0, prices: 0, samples: 0 });
  target = msg.messages!;
  started = { at: process.hrtime.bigint(), cpu: process.cpuUsage() };
  send({ started: true });
});

const logger = createLogger('warn', process.stderr);

if (side === 'oddswatch') {
  // The engine's own path (src/runner/role.ts and engine-runner.ts): the venue client, the displayed
  // prices, the rule index through the references, the firing writer. Only the writer's store is the
  // bench's: it counts what would have been written instead of writing it to a database.
  const index = new RuleIndex();
  for (const rule of benchRules(markets, Number(ruleCount))) index.add(rule, Date.now());
  const store: FiringStore = {
    async writeFirings(batch, priceBatch) {
      firings += batch.length;
      written.firings += batch.length;
      written.prices += priceBatch.length;
      return batch.map(() => 'written' as const);
    },
    async savePrices(batch) {
      written.prices += batch.length;
    },
    async saveHistory(samples) {
      written.samples += samples.length;
    },
  };
  // Nothing may reach a database here: the store above replaces every write.
  const noDatabase = new Proxy({} as Database, {
    get(_target, key) {
      throw new Error(`the ingest bench has no database (${String(key)})`);
    },
  });
  const queue = new SerialQueue(logger);
  const writer = new FiringWriter({
    store,
    logger,
    now: Date.now,
    owns: () => true,
    queue,
    prices: new TokenPriceStore(noDatabase),
    priceSaveDelayMs: 100,
    onWritten: () => {},
  });
  writer.start();
  // The token records as the engine runner keeps them: the role marks the stream's tokens watched,
  // and the feed reads each message through them.
  const records = new TokenRecords((record) => {
    index.releaseToken(record.token);
    record.index = -1;
  });
  const tokens = markets.flatMap((m) => [m.yes, m.no]);
  for (const t of tokens) records.watch(t);
  const intake = new PriceIntake(new PriceReferences(index, records), writer, Date.now);
  // Trades take the engine's path too: with no Large Trade or Volume Spike rule, one lookup each.
  const trades = new TradeRunner({ database: noDatabase, now: Date.now, writer });
  const streamPrices = new StreamPrices(
    (record, price, receivedAtMs, msg) => {
      prices++;
      intake.fromMessage(record, price, receivedAtMs, msg);
    },
    (msg, receivedAtMs) => trades.onTrade(msg, receivedAtMs),
    records,
  );
  const stream = createMarketStream({
    url: wsUrl,
    clobRest: createClobRestClient({ baseUrl: httpUrl, logger, timeoutMs: 10_000 }),
    logger,
    // One connection, as the library opens: the same frames reach both.
    maxTokensPerConnection: tokenCount,
    // As the role makes it: each token's record carried on its price_change entries.
    tagOf: (token) => records.get(token),
  });
  stream.on('message', (msg, receivedAtMs) => {
    streamPrices.handle(msg, receivedAtMs);
    if (started === undefined) {
      if (msg.type === 'book') onReady();
      return;
    }
    counted(1);
  });
  stream.setTokens(tokens);
} else if (side === 'floor') {
  // The floor: ws receiving the frames and JSON.parse of each, nothing else (no checks, no prices,
  // no rules). What any client that parses the frames with JSON.parse costs at least.
  const { default: WebSocket } = await import('ws');
  const ws = new WebSocket(wsUrl);
  ws.on('open', () => ws.send(JSON.stringify({ assets_ids: markets.flatMap((m) => [m.yes, m.no]), type: 'market' })));
  ws.on('message', (data) => {
    const json: unknown = JSON.parse(data.toString());
    const n = Array.isArray(json) ? json.length : 1;
    if (started === undefined) {
      for (let i = 0; i < n; i++) onReady();
      return;
    }
    counted(n);
  });
} else {
  // @nevuamarkets/poly-websockets 1.0.2 as its README shows it, with the same rules evaluated on its
  // price updates. Its URL is a constant of the module; the one change made here is that its `ws`
  // opens the local feed instead: a subclass of ws's WebSocket that swaps the URL, put in the
  // require cache before the library loads.
  const require = createRequire(import.meta.url);
  const libraryDir = require.resolve('@nevuamarkets/poly-websockets');
  const wsPath = require.resolve('ws', { paths: [libraryDir] });
  const WS = require(wsPath) as typeof import('ws').default;
  class LocalFeed extends WS {
    constructor(_url: string, ...rest: unknown[]) {
      super(wsUrl, ...(rest as []));
    }
  }
  require.cache[wsPath]!.exports = LocalFeed;
  const { WSSubscriptionManager } = require('@nevuamarkets/poly-websockets') as typeof import('@nevuamarkets/poly-websockets');
  const index = new RuleIndex();
  for (const rule of benchRules(markets, Number(ruleCount))) index.add(rule, Date.now());
  const manager = new WSSubscriptionManager({
    onBook: async (events) => {
      if (started === undefined) {
        for (let i = 0; i < events.length; i++) onReady();
        return;
      }
      counted(events.length);
    },
    onPriceChange: async (events) => counted(events.length),
    onPolymarketPriceUpdate: async (events) => {
      for (const e of events) {
        prices++;
        firings += index.tick(e.asset_id, parseFloat(e.price), Date.now()).length;
      }
    },
    onError: async (err) => logger.warn({ err: err.message }, 'library error'),
  });
  void manager.addSubscriptions(markets.flatMap((m) => [m.yes, m.no]));
}

import { EventEmitter } from 'node:events';
import type { Database, Unlisten } from '../db/client.js';
import type { Logger } from '../logger.js';
import type { LastTradeMessage, MarketMessage } from '../venue/clob/messages.js';
import { RuleIndex } from '../engine/index.js';
import type { Firing } from '../engine/rules.js';
import { expandRules, savedBands, subscriptionsOfWatchlist, subscriptionsTouchingEvent } from './expand.js';
import type { FireOutcome } from './fire.js';
import { databaseFiringStore, FiringWriter } from './firing-writer.js';
import { PriceIntake } from './price-intake.js';
import type { BatchingOptions } from '../delivery/enqueue.js';
import type { DeliveryHandoff } from '../delivery/handoff.js';
import { PriceReferences } from './references.js';
import { followRuleChanges } from './rule-changes.js';
import { RuleLoader } from './rule-loader.js';
import { RuleSet } from './rule-set.js';
import { SerialQueue } from './serial-queue.js';
import { TokenPriceStore } from './token-prices.js';
import { TokenRecords, type TokenRecord } from './token-records.js';
import { TradeRunner } from './trade-rules.js';

export interface EngineRunnerOptions {
  database: Database;
  logger: Logger;
  now?: () => number;
  /** How often paused level rules are swept, and the longest a price waits to be saved (ms). */
  flushIntervalMs?: number;
  /**
   * How soon a changed price is saved when no firing write carries it sooner (ms, default 100):
   * an engine taking the token over compares its first price with the saved one.
   */
  priceSaveDelayMs?: number;
  /**
   * Whether this process fires for a token (several engine processes split tokens, see
   * shards.ts). Firings of other tokens are dropped before they are written. Default: all.
   */
  owns?: (token: string) => boolean;
  /** DIGEST_HOUR, BURST_MAX and BURST_WINDOW_MS for the firings' deliveries (default: no burst grouping). */
  batching?: BatchingOptions;
  /** The worker of this process, when it has one: the firing writes hand it their deliveries (handoff.ts). */
  handoff?: DeliveryHandoff;
  /** How often the catalog's volume24hr of markets Volume Spike rules watch is read again (ms, default 5 min). */
  baselineRefreshMs?: number;
  /**
   * Subscription notices that arrive within this long of the start of the previous subscription
   * reload wait for the window's end and are reloaded together (ms, default RELOAD_BATCH_MS).
   */
  reloadBatchMs?: number;
}

/**
 * A burst of subscription changes (creates one after another) is reloaded in batches at most this
 * often; a change after a quiet spell is reloaded at once.
 */
export const RELOAD_BATCH_MS = 20;

export interface EngineRunnerEvents {
  /** The set of tokens the rules watch changed; the role passes it to the market stream. */
  'tokens-changed': [tokens: string[]];
  /** A firing was written (or found already written, or skipped). */
  fired: [firing: Firing, outcome: FireOutcome];
  /**
   * Rules started following these tokens while the engine ran: their next price only sets the
   * crossing reference. The role fetches their books now rather than wait for a stream update.
   */
  following: [tokens: string[]];
}

export interface EngineRunner {
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * A new displayed price of a token. Firings are written in the background (see `idle`). The
   * first price of a token awaiting a reference (see `awaitReference`) fires no crossing.
   */
  onPrice(token: string, price: number, receivedAtMs: number, sourceEvent?: unknown, sourceTimestampMs?: number): void;
  /**
   * A displayed price a venue message changed (the stream's path), of the token whose record the
   * feed resolved in `records`: its source event is built only for a firing.
   */
  onMessagePrice(record: TokenRecord, price: number, receivedAtMs: number, msg: MarketMessage): void;
  /**
   * The per-token records of the price path: kept while rules follow a token or the stream carries
   * it (the role says which, with `watch` and `unwatch`); the feed reads messages through them.
   */
  readonly records: TokenRecords;
  /** A trade off the feed, for the Large Trade and Volume Spike rules (nothing is built unless one watches its token). */
  onTrade(msg: LastTradeMessage, receivedAtMs: number): void;
  /**
   * The token's known price is not one the rules may compare with (the token was just followed,
   * or another engine evaluated it until now): its next price only sets the reference. Tokens no
   * rule follows any more are skipped.
   */
  awaitReference(tokens: readonly string[]): void;
  /** Whether the token's next price will only set its reference. */
  awaitsReference(token: string): boolean;
  /** Takes over the price another engine last evaluated, as the reference; no crossing fires (skipped when no rule follows the token). */
  adoptReference(token: string, price: number): void;
  /**
   * Takes the re-arm bands of these tokens' rules from the database: the engine that evaluated
   * them until now saved them (takeover).
   */
  takeOverBands(tokens: readonly string[]): Promise<void>;
  /** Reloads the rules of these subscriptions from the database. */
  reloadSubscriptions(ids: readonly string[]): Promise<void>;
  /** Reloads every subscription that can cover a market of the event (a catalog change). */
  reloadEvent(eventId: string): Promise<void>;
  /** Tokens the rules watch (price and trade rules). */
  tokens(): string[];
  /** Number of (subscription, market) rules loaded. */
  readonly size: number;
  /** Resolves once every queued reload and firing write is done. */
  idle(): Promise<void>;
  on<K extends keyof EngineRunnerEvents>(event: K, listener: (...args: EngineRunnerEvents[K]) => void): EngineRunner;
  off<K extends keyof EngineRunnerEvents>(event: K, listener: (...args: EngineRunnerEvents[K]) => void): EngineRunner;
}

/**
 * The rule index's I/O, composed from parts with one job each: `RuleSet` (rule ids, followed
 * tokens), `RuleLoader` (rules from the database), `followRuleChanges` (the change feed),
 * `PriceReferences` (which price a token's next one is compared with), `FiringWriter` (firings,
 * prices and price history, written in `SerialQueue`, the one line of work shared with reloads).
 */
export function createEngineRunner(options: EngineRunnerOptions): EngineRunner {
  const { database, logger } = options;
  const now = options.now ?? Date.now;
  const emitter = new EventEmitter();
  const index = new RuleIndex({ reportBandChanges: true });
  const rules = new RuleSet();
  // A dropped record's dense index goes back to the index: tokens that come and go leave nothing.
  // Its open minute is closed, so a record of the token made again within the minute writes that
  // minute last. A token no rule follows any more (a trade-only token whose rule went: the loader
  // removes the rows of price-followed ones) loses its saved price, which a price rule created
  // later must not take as its reference; a token handed to another engine keeps it.
  const records = new TokenRecords((record) => {
    index.releaseToken(record.token);
    record.index = -1;
    writer.closeMinute(record);
    if (!followed(record.token)) {
      prices.remove(record.token);
      writer.savePricesSoon();
    }
  });
  const references = new PriceReferences(index, records);
  const prices = new TokenPriceStore(database);
  const queue = new SerialQueue(logger);
  const writer = new FiringWriter({
    store: databaseFiringStore(database, logger, prices, options.batching, options.handoff), logger, now, queue, prices,
    owns: options.owns ?? (() => true),
    priceSaveDelayMs: options.priceSaveDelayMs ?? 100,
    onWritten: (firing, outcome) => emitter.emit('fired', firing, outcome),
  });
  const loader = new RuleLoader({
    now, index, rules, references, writer, prices, records,
    onTokensChanged: () => emitter.emit('tokens-changed', allTokens()),
    onFollowing: (tokens) => emitter.emit('following', tokens),
  });
  const intake = new PriceIntake(references, writer, now);
  const trades = new TradeRunner({ database, now, writer });
  /** Whether a price or trade rule follows the token. */
  const followed = (token: string) => rules.follows(token) || trades.watches(token);
  const allTokens = () => {
    const tokens = rules.tokens();
    const traded = trades.tokens();
    if (traded.length === 0) return tokens;
    const seen = new Set(tokens);
    for (const t of traded) if (!seen.has(t)) tokens.push(t);
    return tokens;
  };
  /** Hands the re-arm bands the index started or passed to the writer, right after each index call. */
  const saveBandChanges = () => {
    for (const ruleId of index.takeBandChanges()) {
      const key = rules.key(ruleId);
      if (key) writer.noteBand(key.subscriptionId, key.marketId, key.token, index.rearmAfter(ruleId));
    }
  };
  const load = async (ids: readonly string[] | undefined) => {
    const expanded = await expandRules(database, ids);
    loader.load(ids, expanded.prices);
    saveBandChanges();
    if (trades.load(ids, expanded.trades)) emitter.emit('tokens-changed', allTokens());
  };
  const reload = (ids: () => Promise<readonly string[]>) => queue.enqueue(async () => load(await ids()));
  // Subscriptions changed whose reload has not started: notices that arrive while it waits (for
  // the batch window, or for the line) are reloaded together, in one query, by that one reload.
  let pending = new Set<string>();
  let pendingReload: Promise<void> | undefined;
  const reloadBatchMs = options.reloadBatchMs ?? RELOAD_BATCH_MS;
  let reloadStartedAt = -Infinity;
  const reloadPending = () =>
    queue.enqueue(() => {
      const taken = [...pending];
      pending = new Set();
      pendingReload = undefined;
      reloadStartedAt = performance.now();
      return load(taken);
    });
  let unlisten: Unlisten[] = [];
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  const baselineRefreshMs = options.baselineRefreshMs ?? 5 * 60_000;
  let baselinesAtMs = now();

  function tick(): void {
    const nowMs = now();
    writer.add(index.sweep(nowMs), { receivedAtMs: nowMs });
    writer.writeDue(nowMs);
    // The catalog sync moves volume24hr without a catalog change: the Volume Spike baseline follows it.
    if (nowMs - baselinesAtMs >= baselineRefreshMs) {
      baselinesAtMs = nowMs;
      trades.refreshBaselines().catch((err: unknown) => logger.warn({ err }, 'reading volume baselines failed'));
    }
  }

  const runner: EngineRunner = {
    async start() {
      if (running) return;
      running = true;
      writer.start();
      // Last known prices first: crossings made while the engine was down are found on the next price.
      const nowMs = now();
      const saved = await prices.loadAll();
      for (const { tokenId, price } of saved) index.tick(tokenId, price, nowMs);
      unlisten = await followRuleChanges(database, {
        subscription: (id) => void runner.reloadSubscriptions([id]),
        watchlist: (id) => void reload(() => subscriptionsOfWatchlist(database, id)),
      });
      await queue.enqueue(() => load(undefined));
      // A saved price of a token no rule follows (left by a crash or an older version) must not
      // become the reference of a rule created later.
      for (const { tokenId } of saved) {
        if (rules.follows(tokenId)) continue;
        references.forget(tokenId);
        prices.remove(tokenId);
        // A record kept from before a stop (the stream still carries the token) holds the dense
        // index: it goes back when the record is dropped, never while a record points at it.
        if (records.get(tokenId) === undefined) index.releaseToken(tokenId);
      }
      writer.savePricesSoon();
      logger.info({ rules: index.size, tradeRules: trades.size, tokens: rules.tokenCount }, 'engine rules loaded');
      timer = setInterval(tick, options.flushIntervalMs ?? 1000);
      timer.unref();
    },
    async stop() {
      if (!running) return;
      running = false;
      if (timer) clearInterval(timer);
      writer.stop();
      for (const u of unlisten) await u().catch(() => {});
      unlisten = [];
      await runner.idle();
      await writer.finish();
    },
    onPrice(token, price, receivedAtMs, sourceEvent, sourceTimestampMs) {
      const record = records.resolve(token);
      intake.price(record, price, receivedAtMs, sourceEvent, sourceTimestampMs);
      // A token neither followed nor carried keeps no record (nor index) after its price.
      records.release(record);
      saveBandChanges();
    },
    onMessagePrice(record, price, receivedAtMs, msg) {
      intake.fromMessage(record, price, receivedAtMs, msg);
      saveBandChanges();
    },
    records,
    onTrade(msg, receivedAtMs) {
      trades.onTrade(msg, receivedAtMs);
    },
    // The role calls these after awaits (a takeover) during which a token's last rule may have
    // gone: a token no rule follows gets no record nor dense index that nothing would drop.
    awaitReference(tokens) {
      for (const token of tokens) if (followed(token)) references.await(token);
    },
    awaitsReference: (token) => references.awaits(token),
    adoptReference(token, price) {
      if (!followed(token)) return;
      const nowMs = now();
      writer.add(references.adopt(token, price, nowMs), { receivedAtMs: nowMs });
      saveBandChanges();
    },
    async takeOverBands(tokens) {
      // Not behind the queue: the takeover waits for this. Applied in one synchronous step, so a
      // reload running meanwhile sees either none or all of them (and keeps them, see rule-loader.ts).
      const saved = await savedBands(database, tokens);
      for (const band of saved) {
        const ruleId = rules.find(band.subscriptionId, band.marketId);
        if (ruleId !== undefined) index.restoreBand(ruleId, band.rearmAfter);
      }
      saveBandChanges();
    },
    reloadSubscriptions(ids) {
      for (const id of ids) pending.add(id);
      // Never before the current macrotask ends: the notice of a create arrives while its statement
      // answers, and the create's HTTP answer is written before the reload takes the database.
      pendingReload ??= new Promise<void>((resolve) => {
        const go = () => void reloadPending().then(resolve);
        const waitMs = reloadStartedAt + reloadBatchMs - performance.now();
        if (waitMs > 0) setTimeout(go, waitMs);
        else setImmediate(go);
      });
      return pendingReload;
    },
    reloadEvent(eventId) {
      return reload(() => subscriptionsTouchingEvent(database, eventId));
    },
    tokens: allTokens,
    get size() {
      return index.size;
    },
    async idle() {
      do {
        await pendingReload;
        await queue.idle();
      } while (pendingReload);
    },
    on(event, listener) {
      emitter.on(event, listener as (...args: unknown[]) => void);
      return runner;
    },
    off(event, listener) {
      emitter.off(event, listener as (...args: unknown[]) => void);
      return runner;
    },
  };
  return runner;
}

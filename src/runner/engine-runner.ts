import { EventEmitter } from 'node:events';
import type { Database, Unlisten } from '../db/client.js';
import type { Logger } from '../logger.js';
import { SUBSCRIPTION_CHANGED, WATCHLIST_CHANGED } from '../db/coordination.js';
import { RuleIndex } from '../engine/index.js';
import type { Firing } from '../engine/rules.js';
import { compileRule, expandPriceRules, subscriptionsOfWatchlist, subscriptionsTouchingEvent } from './expand.js';
import { ReplayInBatch, writeFiring, writeFirings, type FireOutcome, type FiringContext, type PendingFiring } from './fire.js';
import { MinuteSampler, pruneSamples, writeSamples } from './price-samples.js';
import { TokenPriceStore, type PriceBatch } from './token-prices.js';

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
}

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
   * The token's known price is not one the rules may compare with (the token was just followed,
   * or another engine evaluated it until now): its next price only sets the reference.
   */
  awaitReference(tokens: readonly string[]): void;
  /** Whether the token's next price will only set its reference. */
  awaitsReference(token: string): boolean;
  /** Takes over the price another engine last evaluated, as the reference; no crossing fires. */
  adoptReference(token: string, price: number): void;
  /** Reloads the rules of these subscriptions from the database. */
  reloadSubscriptions(ids: readonly string[]): Promise<void>;
  /** Reloads every subscription that can cover a market of the event (a catalog change). */
  reloadEvent(eventId: string): Promise<void>;
  /** Tokens the rules watch. */
  tokens(): string[];
  /** Number of (subscription, market) rules loaded. */
  readonly size: number;
  /** Resolves once every queued reload and firing write is done. */
  idle(): Promise<void>;
  on<K extends keyof EngineRunnerEvents>(event: K, listener: (...args: EngineRunnerEvents[K]) => void): EngineRunner;
  off<K extends keyof EngineRunnerEvents>(event: K, listener: (...args: EngineRunnerEvents[K]) => void): EngineRunner;
}

/** Most firings written in one transaction (the statements' parameter count grows with it). */
const MAX_BATCH = 500;

interface RuleMeta {
  subscriptionId: string;
  marketId: string;
  token: string;
}

export function createEngineRunner(options: EngineRunnerOptions): EngineRunner {
  const { database, logger } = options;
  const now = options.now ?? Date.now;
  const owns = options.owns ?? (() => true);
  const emitter = new EventEmitter();
  const index = new RuleIndex();
  const prices = new TokenPriceStore(database);
  // Per-minute price history for dry runs, written with the prices (one row per token and minute).
  const samples = new MinuteSampler();
  const meta = new Map<number, RuleMeta>();
  const bySubscription = new Map<string, Set<number>>();
  const tokenRefs = new Map<string, number>();
  // Tokens whose next price only sets the crossing reference.
  const awaiting = new Set<string>();
  let loaded = false;
  let priceTimer: NodeJS.Timeout | undefined;
  const freeIds: number[] = [];
  // Firings not yet written may be newer than subscription_market_state: reloads take the later.
  const lastFired = new Map<string, number>();
  let nextId = 0;
  let unlisten: Unlisten[] = [];
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  // Reloads and firing writes run one after another, in arrival order.
  let queue: Promise<void> = Promise.resolve();

  const enqueue = (task: () => Promise<void>) => {
    const next = queue.then(task).catch((error: unknown) => logger.error({ err: error }, 'engine runner task failed'));
    queue = next;
    return next;
  };

  // Firings waiting for the write task; all that arrive before it runs share one commit, so the
  // commit's disk flush is paid once per batch rather than once per firing.
  const pending: PendingFiring[] = [];

  function handleFirings(firings: readonly Firing[], ctx: FiringContext): void {
    for (const firing of firings) {
      // The one place firings are written: another process fires for tokens it owns.
      if (!owns(firing.token)) continue;
      lastFired.set(`${firing.subscriptionId}:${firing.marketId}`, firing.atMs);
      pending.push({ firing, ctx });
      if (pending.length === 1) void enqueue(writePending);
    }
  }

  function savePricesSoon(): void {
    if (priceTimer || !running) return;
    priceTimer = setTimeout(() => {
      priceTimer = undefined;
      void enqueue(writePending);
    }, options.priceSaveDelayMs ?? 100);
    priceTimer.unref();
  }

  /**
   * Writes the waiting firings and, once none is left waiting, the prices evaluated so far, in one
   * transaction: a saved price never runs ahead of the firings it caused, so an engine taking the
   * token over after a crash finds again exactly the crossings whose firings were lost.
   */
  async function writePending(): Promise<void> {
    const batch = pending.splice(0, MAX_BATCH);
    if (pending.length > 0) void enqueue(writePending);
    const last = pending.length === 0;
    const priceBatch: PriceBatch = last ? prices.takeChanged() : [];
    const nowMs = now();
    // Each token's history is written by the engine that owns it (checked here, once a minute, not per price).
    const sampleBatch = last ? samples.take(nowMs).filter((s) => owns(s.token)) : [];
    const prune = last && samples.takePrune(nowMs);
    // History is not part of the crash-recovery contract below: a failed write costs samples only.
    const saveHistory = async () => {
      if (sampleBatch.length > 0) await writeSamples(database.db, sampleBatch);
      if (prune) await pruneSamples(database.db, nowMs);
    };
    const saveHistoryLogged = () =>
      saveHistory().catch((err: unknown) => logger.warn({ err, samples: sampleBatch.length }, 'price sample write failed'));
    if (batch.length === 0) {
      if (priceBatch.length > 0) await prices.saveIn(database.db, priceBatch);
      await saveHistoryLogged();
      return;
    }
    const outcomes = await database.db
      .transaction(async (tx): Promise<(FireOutcome | undefined)[]> => {
        const written = await writeFirings(tx, batch);
        await prices.saveIn(tx, priceBatch);
        return written;
      })
      .catch(async (error: unknown) => {
        if (!(error instanceof ReplayInBatch)) logger.warn({ err: error, firings: batch.length }, 'batched firing write failed; writing one at a time');
        return database.db.transaction(async (tx) => {
          const results: (FireOutcome | undefined)[] = [];
          for (const { firing, ctx } of batch) {
            // A failed firing rolls back its own savepoint only; the rest of the batch still commits.
            results.push(
              await writeFiring(tx, firing, ctx).catch((err: unknown) => {
                logger.error({ err, subscriptionId: firing.subscriptionId }, 'firing write failed');
                return undefined;
              }),
            );
          }
          await prices.saveIn(tx, priceBatch);
          return results;
        });
      });
    await saveHistoryLogged();
    batch.forEach(({ firing }, i) => {
      const outcome = outcomes[i];
      if (outcome) emitter.emit('fired', firing, outcome);
    });
  }

  /** Removes a subscription's rules; adds the tokens no rule follows any more to `dropped`. */
  function removeSubscription(subscriptionId: string, dropped: Set<string>): void {
    const ids = bySubscription.get(subscriptionId);
    if (!ids) return;
    for (const ruleId of ids) {
      const m = meta.get(ruleId)!;
      index.remove(ruleId);
      meta.delete(ruleId);
      freeIds.push(ruleId);
      const refs = (tokenRefs.get(m.token) ?? 1) - 1;
      if (refs <= 0) {
        tokenRefs.delete(m.token);
        dropped.add(m.token);
      } else tokenRefs.set(m.token, refs);
    }
    bySubscription.delete(subscriptionId);
  }

  async function load(subscriptionIds: readonly string[] | undefined): Promise<void> {
    const pairs = await expandPriceRules(database, subscriptionIds);
    let tokensChanged = false;
    // Tokens followed before this reload; a reload that keeps following one keeps its reference.
    const dropped = new Set<string>();
    const followed: string[] = [];
    if (subscriptionIds) for (const id of subscriptionIds) removeSubscription(id, dropped);
    const nowMs = now();
    for (const pair of pairs) {
      const ruleId = freeIds.pop() ?? nextId++;
      const fired = lastFired.get(`${pair.subscriptionId}:${pair.marketId}`);
      if (fired !== undefined && fired > (pair.updatedAtMs ?? -Infinity) && fired > (pair.lastFiredAtMs ?? -Infinity)) {
        pair.lastFiredAtMs = fired;
      }
      const rule = compileRule(pair, ruleId);
      meta.set(ruleId, { subscriptionId: pair.subscriptionId, marketId: pair.marketId, token: pair.token });
      let ids = bySubscription.get(pair.subscriptionId);
      if (!ids) bySubscription.set(pair.subscriptionId, (ids = new Set()));
      ids.add(ruleId);
      const refs = tokenRefs.get(pair.token) ?? 0;
      if (refs === 0 && !dropped.delete(pair.token)) {
        tokensChanged = true;
        // The price remembered from before nobody followed the token is stale: forget it before
        // the rule is added, so neither a crossing nor a level rule is judged against it. (At
        // start the saved prices stay: they are the ones the rules saw before the engine stopped.)
        if (loaded) {
          index.forgetPrice(pair.token);
          awaiting.add(pair.token);
          followed.push(pair.token);
        }
      }
      tokenRefs.set(pair.token, refs + 1);
      handleFirings(index.add(rule, nowMs), { receivedAtMs: nowMs });
    }
    for (const token of dropped) {
      tokensChanged = true;
      index.forgetPrice(token);
      awaiting.delete(token);
      prices.remove(token);
    }
    if (dropped.size > 0) savePricesSoon();
    if (!subscriptionIds) index.settleAll();
    loaded = true;
    if (tokensChanged) emitter.emit('tokens-changed', [...tokenRefs.keys()]);
    if (followed.length > 0) emitter.emit('following', followed);
  }

  function tick(): void {
    const nowMs = now();
    handleFirings(index.sweep(nowMs), { receivedAtMs: nowMs });
    // Saved through the write queue, with or behind the firings those prices caused (writePending).
    if (prices.hasChanges || samples.hasWork(nowMs)) void enqueue(writePending);
  }

  const runner: EngineRunner = {
    async start() {
      if (running) return;
      running = true;
      // Last known prices first: crossings made while the engine was down are found on the next price.
      const nowMs = now();
      const saved = await prices.loadAll();
      for (const { tokenId, price } of saved) index.tick(tokenId, price, nowMs);
      unlisten = [
        await database.listen(SUBSCRIPTION_CHANGED, (id) => void runner.reloadSubscriptions([id])),
        await database.listen(WATCHLIST_CHANGED, (id) => {
          void enqueue(async () => load(await subscriptionsOfWatchlist(database, id)));
        }),
      ];
      await enqueue(() => load(undefined));
      // A saved price of a token no rule follows (left by a crash or an older version) must not
      // become the reference of a rule created later.
      for (const { tokenId } of saved) {
        if (tokenRefs.has(tokenId)) continue;
        index.forgetPrice(tokenId);
        prices.remove(tokenId);
      }
      savePricesSoon();
      logger.info({ rules: index.size, tokens: tokenRefs.size }, 'engine rules loaded');
      timer = setInterval(tick, options.flushIntervalMs ?? 1000);
      timer.unref();
    },
    async stop() {
      if (!running) return;
      running = false;
      if (timer) clearInterval(timer);
      clearTimeout(priceTimer);
      priceTimer = undefined;
      for (const u of unlisten) await u().catch(() => {});
      unlisten = [];
      await runner.idle();
      await prices.flush();
      await writeSamples(database.db, samples.take(now(), true).filter((s) => owns(s.token))).catch((err: unknown) => logger.warn({ err }, 'price sample write failed'));
    },
    onPrice(token, price, receivedAtMs, sourceEvent, sourceTimestampMs) {
      if (!Number.isFinite(price)) return;
      prices.set(token, price);
      samples.note(token, price, now());
      savePricesSoon();
      const firings = awaiting.delete(token) ? index.setPrice(token, price, now()) : index.tick(token, price, now());
      if (firings.length > 0) {
        handleFirings(firings, {
          receivedAtMs,
          ...(sourceEvent !== undefined ? { sourceEvent } : {}),
          ...(sourceTimestampMs !== undefined ? { sourceTimestampMs } : {}),
        });
      }
    },
    awaitReference(tokens) {
      for (const token of tokens) {
        index.forgetPrice(token);
        awaiting.add(token);
      }
    },
    awaitsReference: (token) => awaiting.has(token),
    adoptReference(token, price) {
      awaiting.delete(token);
      const nowMs = now();
      handleFirings(index.setPrice(token, price, nowMs), { receivedAtMs: nowMs });
    },
    reloadSubscriptions(ids) {
      return enqueue(() => load([...new Set(ids)]));
    },
    reloadEvent(eventId) {
      return enqueue(async () => load(await subscriptionsTouchingEvent(database, eventId)));
    },
    tokens: () => [...tokenRefs.keys()],
    get size() {
      return index.size;
    },
    async idle() {
      let seen: Promise<void>;
      do {
        seen = queue;
        await seen;
      } while (seen !== queue);
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

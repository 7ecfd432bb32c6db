import { sql } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client.js';
import type { Firing, RearmSide } from '../engine/rules.js';
import type { Logger } from '../logger.js';
import type { BatchingOptions } from '../delivery/enqueue.js';
import type { DeliveryHandoff } from '../delivery/handoff.js';
import { ReplayInBatch, writeFiring, writeFirings, type FireOutcome, type FiringContext, type PendingFiring } from './fire.js';
import { MinuteSampler, pruneSamples, writeSamples, type MinuteSample, type SampleSlot } from './price-samples.js';
import type { SerialQueue } from './serial-queue.js';
import { TokenPriceStore, type PriceBatch, type PriceSlot } from './token-prices.js';

/** Most firings written in one transaction (the statements' parameter count grows with it). */
const MAX_BATCH = 500;

/**
 * Where the writer's batches go. The engine uses `databaseFiringStore`; the ingest bench
 * (bench/ingest-client.ts) counts what would be written instead, so it measures the path up to here.
 */
export interface FiringStore {
  /** Firings with the prices evaluated so far, in one transaction: the outcome of each (undefined: failed). */
  writeFirings(batch: readonly PendingFiring[], prices: PriceBatch, bands: readonly BandState[]): Promise<(FireOutcome | undefined)[]>;
  /** Prices (and re-arm bands) on their own, when no firing waits. */
  savePrices(prices: PriceBatch, bands: readonly BandState[]): Promise<void>;
  /** Finished minutes of price history (those within the retention at `nowMs`), and the prune of old days when `prune`. */
  saveHistory(samples: readonly MinuteSample[], nowMs: number, prune: boolean): Promise<void>;
}

/** The store of the engine: firings, prices and history in the database. */
export function databaseFiringStore(database: Database, logger: Logger, prices: TokenPriceStore, batching?: BatchingOptions, handoff?: DeliveryHandoff): FiringStore {
  /** The fallback of a batch that cannot be written whole: each firing in a savepoint of its own. */
  const writeOneAtATime = (batch: readonly PendingFiring[], priceBatch: PriceBatch, bandBatch: readonly BandState[]) =>
    database.db.transaction(async (tx) => {
      const results: (FireOutcome | undefined)[] = [];
      for (const { firing, ctx } of batch) {
        // A failed firing rolls back its own savepoint only; the rest of the batch still commits.
        results.push(
          await writeFiring(tx, firing, ctx, batching).catch((err: unknown) => {
            logger.error({ err, subscriptionId: firing.subscriptionId }, 'firing write failed');
            return undefined;
          }),
        );
      }
      await prices.saveIn(tx, priceBatch);
      await saveBands(tx, bandBatch);
      return results;
    });
  return {
    async writeFirings(batch, priceBatch, bandBatch) {
      // The deliveries go to this process's worker only once committed (and the one-at-a-time
      // fallback, whose savepoints may roll some back, leaves them to claims as before).
      const handing = handoff?.begin();
      let written: (FireOutcome | undefined)[];
      try {
        written = await database.db.transaction((tx) =>
          // The prices and bands before the outbox write: a lease handed off starts last.
          writeFirings(tx, batch, batching, handing, async () => {
            await prices.saveIn(tx, priceBatch);
            await saveBands(tx, bandBatch);
          }),
        );
      } catch (error) {
        handing?.aborted();
        if (!(error instanceof ReplayInBatch)) logger.warn({ err: error, firings: batch.length }, 'batched firing write failed; writing one at a time');
        return writeOneAtATime(batch, priceBatch, bandBatch);
      }
      // Committed: whatever the hand-off does now, the batch is not written again (a throw here
      // leaves its leased rows to the lease's end and the claims after it).
      try {
        handing?.committed();
      } catch (err) {
        logger.error({ err, firings: batch.length }, 'handing committed deliveries to the worker failed; their leases will expire');
      }
      return written;
    },
    async savePrices(priceBatch, bandBatch) {
      await prices.saveIn(database.db, priceBatch);
      await saveBands(database.db, bandBatch);
    },
    async saveHistory(samples, nowMs, prune) {
      // The prune also makes tomorrow's partition: a failed write must not put it off an hour.
      try {
        if (samples.length > 0) await writeSamples(database.db, samples, nowMs);
      } finally {
        if (prune) await pruneSamples(database.db, nowMs);
      }
    },
  };
}

export interface FiringWriterOptions {
  store: FiringStore;
  logger: Logger;
  now: () => number;
  /** Whether this process fires for (and keeps the price history of) a token. */
  owns: (token: string) => boolean;
  queue: SerialQueue;
  prices: TokenPriceStore;
  /** How soon a changed price is saved when no firing write carries it sooner (ms). */
  priceSaveDelayMs: number;
  /** A firing was written, found already written, or skipped. */
  onWritten: (firing: Firing, outcome: FireOutcome) => void;
}

/**
 * What the engine writes, in the runner's queue: firings, the prices evaluated, and the per-minute
 * price history for dry runs (one row per token and minute). Firings that arrive before the write
 * task runs share one commit, so its disk flush is paid once per batch rather than once per firing.
 */
export class FiringWriter {
  private readonly pending: PendingFiring[] = [];
  // Firings not yet written may be newer than subscription_market_state: reloads take the later.
  private readonly lastFired = new Map<string, number>();
  private readonly samples = new MinuteSampler();
  /** Re-arm bands started or passed since the last save, by (subscription, market); the latest wins. */
  private bands = new Map<string, BandState>();
  private priceTimer: NodeJS.Timeout | undefined;
  private accepting = false;

  constructor(private readonly options: FiringWriterOptions) {}

  /** Queues the firings of tokens this process owns (the one place firings are written). */
  add(firings: readonly Firing[], ctx: FiringContext): void {
    for (const firing of firings) {
      // Another process fires for tokens it owns.
      if (!this.options.owns(firing.token)) continue;
      this.lastFired.set(`${firing.subscriptionId}:${firing.marketId}`, firing.atMs);
      this.pending.push({ firing, ctx });
      if (this.pending.length === 1) this.enqueueWrite();
    }
  }

  /** When the rule last fired according to firings this process queued, if it did. */
  lastFiredAt(subscriptionId: string, marketId: string): number | undefined {
    return this.lastFired.get(`${subscriptionId}:${marketId}`);
  }

  /**
   * A rule's re-arm band started (a firing) or was passed (null): saved with the prices, so with or
   * after the firing that started it, and read back by the next start (expand.ts).
   */
  noteBand(subscriptionId: string, marketId: string, token: string, side: RearmSide | null): void {
    if (!this.options.owns(token)) return;
    this.bands.set(`${subscriptionId}:${marketId}`, { subscriptionId, marketId, side });
    this.savePricesSoon();
  }

  /** An evaluated price, saved soon and kept in the minute's history (on the token's record: no lookup). */
  notePrice(slot: PriceSlot & SampleSlot, price: number, nowMs: number): void {
    this.options.prices.set(slot, price);
    this.samples.note(slot, price, nowMs);
    this.savePricesSoon();
  }

  /**
   * The token's record was dropped: its open minute is closed now, so a later record of the same
   * token (followed again within the minute) writes that minute after it, with the newer price.
   */
  closeMinute(slot: SampleSlot): void {
    this.samples.close(slot);
  }

  /** Schedules a save of the changed prices, unless one is scheduled or the writer is stopped. */
  savePricesSoon(): void {
    if (this.priceTimer || !this.accepting) return;
    this.priceTimer = setTimeout(() => {
      this.priceTimer = undefined;
      this.enqueueWrite();
    }, this.options.priceSaveDelayMs);
    this.priceTimer.unref();
  }

  /** Queues a write when prices or finished minutes wait (the periodic sweep calls it). */
  writeDue(nowMs: number): void {
    // Saved through the write queue, with or behind the firings those prices caused (see `write`).
    if (this.options.prices.hasChanges || this.bands.size > 0 || this.samples.hasWork(nowMs)) this.enqueueWrite();
  }

  start(): void {
    this.accepting = true;
  }

  /** No more timed saves; what is queued still runs (the runner waits for its queue). */
  stop(): void {
    this.accepting = false;
    clearTimeout(this.priceTimer);
    this.priceTimer = undefined;
  }

  /** After the queue is idle: the last prices and every sample kept, the current minute's too. */
  async finish(): Promise<void> {
    const { store, logger, now, owns, prices } = this.options;
    await store.savePrices(prices.takeChanged(), this.takeBands());
    const nowMs = now();
    await store.saveHistory(this.samples.take(nowMs, true).filter((s) => owns(s.token)), nowMs, false).catch((err: unknown) => logger.warn({ err }, 'price sample write failed'));
  }

  private takeBands(): BandState[] {
    if (this.bands.size === 0) return [];
    const taken = [...this.bands.values()];
    this.bands = new Map();
    return taken;
  }

  private enqueueWrite(): void {
    void this.options.queue.enqueue(() => this.write());
  }

  /**
   * Writes the waiting firings and, once none is left waiting, the prices evaluated so far, in one
   * transaction: a saved price never runs ahead of the firings it caused, so an engine taking the
   * token over after a crash finds again exactly the crossings whose firings were lost.
   */
  private async write(): Promise<void> {
    const { store, logger, now, owns, prices } = this.options;
    const batch = this.pending.splice(0, MAX_BATCH);
    if (this.pending.length > 0) this.enqueueWrite();
    const last = this.pending.length === 0;
    const priceBatch: PriceBatch = last ? prices.takeChanged() : [];
    const bandBatch = last ? this.takeBands() : [];
    const nowMs = now();
    // Each token's history is written by the engine that owns it (checked here, once a minute, not per price).
    const sampleBatch = last ? this.samples.take(nowMs).filter((s) => owns(s.token)) : [];
    const prune = last && this.samples.takePrune(nowMs);
    // History is not part of the crash-recovery contract above: a failed write costs samples only.
    const saveHistoryLogged = () =>
      (sampleBatch.length > 0 || prune ? store.saveHistory(sampleBatch, nowMs, prune) : Promise.resolve()).catch((err: unknown) =>
        logger.warn({ err, samples: sampleBatch.length }, 'price sample write failed'),
      );
    if (batch.length === 0) {
      if (priceBatch.length > 0 || bandBatch.length > 0) await store.savePrices(priceBatch, bandBatch);
      await saveHistoryLogged();
      return;
    }
    const outcomes = await store.writeFirings(batch, priceBatch, bandBatch);
    await saveHistoryLogged();
    batch.forEach(({ firing }, i) => {
      const outcome = outcomes[i];
      if (outcome) this.options.onWritten(firing, outcome);
    });
  }
}

export interface BandState {
  subscriptionId: string;
  marketId: string;
  side: RearmSide | null;
}

/** One statement for the batch; a row not written yet (its firing skipped) is left alone. */
async function saveBands(on: Queryable, bands: readonly BandState[]): Promise<void> {
  if (bands.length === 0) return;
  const values = sql.join(bands.map((b) => sql`(${b.subscriptionId}::text, ${b.marketId}::text, ${b.side}::text)`), sql`, `);
  await on.execute(sql`
    update subscription_market_state as st set rearm_after = v.side
    from (values ${values}) as v(sid, mid, side)
    where st.subscription_id = v.sid and st.market_id = v.mid`);
}

import type { Database } from '../db/client.js';
import type { Logger } from '../logger.js';
import type { BatchingOptions } from '../delivery/enqueue.js';
import { fanOutToDemoWebhooks } from '../delivery/demo-fanout.js';
import { statusPayloadBase } from '../delivery/payloads.js';
import { closeSubscriptions, loadEvent, matchingSubscriptions, notifySubscription } from './catalog-effects.js';
import { readChanges, savePosition, storedPosition } from './catalog-feed.js';
import { notifyResolution } from './resolution.js';
import { changesEventMarkets, closingOf, noticesFor, type CatalogChange } from './catalog-notices.js';

// The engine's consumer of catalog changes: reads the feed (catalog-feed.ts), decides what each
// change means (catalog-notices.ts) and writes its effects (catalog-effects.ts), one change at a time.

export interface CatalogChangeConsumerOptions {
  database: Database;
  logger: Logger;
  /** Told about every event whose markets changed, so price rules of wide scopes follow. */
  onEventChanged?: (eventId: string) => Promise<void> | void;
  pollIntervalMs?: number;
  /**
   * Start after this change id. Default: where this reader left off (its position is stored after
   * every change, so changes made while no engine ran are handled at the next start), or, the
   * first time, the newest change (older ones are history).
   */
  afterId?: number;
  /** How the notices' deliveries are batched (digests, bursts); default: no burst grouping. */
  batching?: BatchingOptions;
}

export interface CatalogChangeConsumer {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Processes every change not yet seen, in id order; answers how many. */
  processPending(): Promise<number>;
  readonly lastId: number;
}

const CHANGES_PER_READ = 200;

/** Every effect of one change: its notices to demo webhooks and catalog rules, the rules it stops, the engine told. */
async function handleChange(options: CatalogChangeConsumerOptions, change: CatalogChange): Promise<void> {
  const { database } = options;
  const loaded = await loadEvent(database.db, change.eventId);
  if (loaded) {
    const bases = noticesFor(change, loaded.markets).map((notice) => statusPayloadBase(loaded.event, notice, change.detectedAt));
    for (const base of bases) await fanOutToDemoWebhooks(database.db, base);
    if (bases.length > 0) {
      for (const subscriptionId of await matchingSubscriptions(database, change)) {
        for (const base of bases) await notifySubscription(database.db, subscriptionId, base, change.detectedAt, options.batching);
      }
    }
  }
  // Resolution rules: the sync records a resolution before the closing of the same pass, so a
  // resolved market's rules hear of it before the closing stops them.
  await notifyResolution(database, change, options.batching);
  const closing = closingOf(change);
  if (closing) await closeSubscriptions(database.db, closing);
  if (changesEventMarkets(change)) await options.onEventChanged?.(change.eventId);
}

export function createCatalogChangeConsumer(options: CatalogChangeConsumerOptions): CatalogChangeConsumer {
  const { database, logger } = options;
  let lastId = options.afterId ?? -1;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function run(): Promise<number> {
    if (lastId < 0) lastId = await storedPosition(database);
    let done = 0;
    for (;;) {
      const batch = await readChanges(database, lastId, CHANGES_PER_READ);
      if (batch.length === 0) return done;
      for (const change of batch) {
        await handleChange(options, change);
        lastId = change.id;
        await savePosition(database, lastId);
        done++;
      }
    }
  }

  const consumer: CatalogChangeConsumer = {
    async start() {
      await consumer.processPending();
      timer = setInterval(() => {
        consumer.processPending().catch((error: unknown) => logger.error({ err: error }, 'catalog changes failed'));
      }, options.pollIntervalMs ?? 2000);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => 0);
    },
    processPending() {
      // One pass at a time; a caller arriving mid-pass waits for it and then runs its own.
      const next = (running ?? Promise.resolve(0)).catch(() => 0).then(run);
      running = next;
      return next;
    },
    get lastId() {
      return lastId;
    },
  };
  return consumer;
}

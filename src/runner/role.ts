import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../logger.js';
import { createMarketStream, type MarketStream } from '../venue/clob/market-socket.js';
import { createClobRestClient, type ClobRestClient } from '../venue/clob/rest.js';
import { createCatalogChangeConsumer, type CatalogChangeConsumer } from './catalog-changes.js';
import { createClosingSoonChecker, type ClosingSoonChecker } from './closing-soon.js';
import type { DeliveryHandoff } from '../delivery/handoff.js';
import { createEngineRunner, type EngineRunner } from './engine-runner.js';
import { startFeedHealth, type FeedHealthMonitor } from './feed-health.js';
import { createBookFallback } from './book-fallback.js';
import { StreamPrices } from './prices-from-stream.js';
import { joinShards, type ShardMembership } from './shards.js';
import { TokenPriceStore } from './token-prices.js';

export interface EngineRoleOptions {
  database: Database;
  config: Config;
  logger: Logger;
  /** Default: config.CLOB_WS_URL. */
  clobWsUrl?: string;
  /** Default: config.CLOB_URL. */
  clobUrl?: string;
  /** For tests: a market stream of one's own instead of the venue's (then books are fetched by REST only when `clobUrl` is given). */
  marketStream?: MarketStream;
  /** How often the engine processes sharing the database are counted (ms). Default 250. */
  shardRefreshIntervalMs?: number;
  /** How often the market connections' last frames are checked (ms). Default: see feed-health.ts. */
  feedCheckIntervalMs?: number;
  /** PING interval of the venue stream (ms, default 10 s); a PONG counts as a sign of life. */
  streamPingIntervalMs?: number;
  /** The feed health's and Closing Soon's clock (default Date.now): tests move it instead of waiting. */
  now?: () => number;
  /** The rules' clock (default Date.now): tests move it to measure windows and pauses without waiting them out. */
  ruleClock?: () => number;
  /** Joins the firing writes to this process's delivery worker, when it runs one (handoff.ts). */
  handoff?: DeliveryHandoff;
  /**
   * How long a newly followed token waits for the stream's `book` snapshot before its book is
   * asked for by REST (ms, default BOOK_FALLBACK_MS).
   */
  bookFallbackMs?: number;
}

/** One market connection's lag, for /readyz and /metrics. */
export interface FeedLag {
  connection: number;
  tokens: number;
  open: boolean;
  /** Seconds since its last frame. */
  lagSeconds: number;
}

export interface EngineRole {
  runner: EngineRunner;
  catalog: CatalogChangeConsumer;
  /** The timer of Closing Soon rules (closing-soon.ts). */
  closingSoon: ClosingSoonChecker;
  stream: MarketStream;
  /** This process's share of the tokens (all of them on PGlite or when it runs alone). */
  shards: ShardMembership;
  feedHealth: FeedHealthMonitor;
  /** Each market connection's lag now. */
  feedLag(): FeedLag[];
  stop(): Promise<void>;
}

/** Keys of member lists whose `ready` announcements are kept (a change may be seen late). */
const READY_KEYS_KEPT = 16;

/**
 * How long a newly followed token waits for its stream snapshot before a REST book is asked for.
 * The venue answers a `subscribe` with a `book` of each added token within milliseconds; the REST
 * book is for a connection that is down or stalled meanwhile.
 */
export const BOOK_FALLBACK_MS = 500;

/** The engine role: rules from the database, prices from the venue stream, firings to the database. */
export async function startEngineRole(options: EngineRoleOptions): Promise<EngineRole> {
  const { database, config } = options;
  const logger = options.logger.child({ role: 'engine' });
  const shards = await joinShards({ database, logger, refreshIntervalMs: options.shardRefreshIntervalMs });
  // Tokens given to another member that this process still evaluates until that member announces
  // it follows them (token → the new owner's slot): a handover leaves no moment without an owner.
  const handingOver = new Map<string, number>();
  const evaluates = (token: string) => shards.owns(token) || handingOver.has(token);
  const batching = {
    digestHour: config.DIGEST_HOUR,
    burst: { max: config.BURST_MAX, windowMs: config.BURST_WINDOW_MS },
  };
  const runner = createEngineRunner({
    database, logger, owns: evaluates, batching,
    ...(options.ruleClock ? { now: options.ruleClock } : {}),
    ...(options.handoff ? { handoff: options.handoff } : {}),
  });
  const savedPrices = new TokenPriceStore(database);
  // Stopping aborts book requests in flight and their retries: a stop never waits on the venue.
  const venueRequests = new AbortController();
  const clobRest: ClobRestClient | undefined =
    options.marketStream && !options.clobUrl
      ? undefined
      : createClobRestClient({ baseUrl: options.clobUrl ?? config.CLOB_URL, logger, timeoutMs: 10_000, signal: venueRequests.signal });
  const records = runner.records;
  const stream =
    options.marketStream ??
    createMarketStream({
      url: options.clobWsUrl ?? config.CLOB_WS_URL,
      clobRest: clobRest!,
      logger,
      ...(options.streamPingIntervalMs ? { pingIntervalMs: options.streamPingIntervalMs } : {}),
      // Each token's record rides on its price_change entries (watch() makes it before the stream
      // follows the token), so the connection's filter lookup is the only one per entry.
      tagOf: (token) => records.get(token),
    });
  const prices = new StreamPrices(
    (record, price, receivedAtMs, msg) => runner.onMessagePrice(record, price, receivedAtMs, msg),
    (msg, receivedAtMs) => runner.onTrade(msg, receivedAtMs),
    records,
  );

  // The stream carries only the tokens this process evaluates; books of tokens given up are forgotten.
  // The stream's tokens are always `watched` (set here only), so a change hands it the tokens that
  // came and went, not every token again: a reload adds a token or two, and rebuilding the records'
  // flags and the stream's sets of every followed token on each one grew with all of them (~0.35 ms
  // a reload at 1,400 tokens, docs/PERFORMANCE.md "Sequential creates, tenth round").
  let started = false;
  let watched = new Set<string>();
  const watch = (tokens: readonly string[] = runner.tokens()) => {
    const next = new Set<string>();
    for (const t of tokens) if (evaluates(t)) next.add(t);
    const gone: string[] = [];
    for (const t of watched) if (!next.has(t)) gone.push(t);
    const added: string[] = [];
    for (const t of next) if (!watched.has(t)) added.push(t);
    for (const t of gone) records.unwatch(t);
    for (const t of added) records.watch(t);
    for (const t of handingOver.keys()) if (!next.has(t)) handingOver.delete(t);
    watched = next;
    if (gone.length > 0) stream.removeTokens(gone);
    if (added.length > 0) stream.addTokens(added);
  };
  runner.on('tokens-changed', (tokens) => {
    if (started) watch(tokens);
  });

  // Newly followed tokens: the stream's subscription snapshot sets their reference, so the first
  // comparison is with a price of now. Those still waiting for one after `bookFallbackMs` (the
  // connection was down or stalled) get a fresh book by REST instead. Asking at once cost as much
  // as the rest of a create (docs/PERFORMANCE.md, "Sequential creates, seventh round") for a book
  // the snapshot brings anyway.
  const awaitsBook = (token: string) => watched.has(token) && runner.awaitsReference(token);
  const books = createBookFallback({
    waitMs: options.bookFallbackMs ?? BOOK_FALLBACK_MS,
    wanted: awaitsBook,
    ...(clobRest
      ? {
          fetch: async (tokens: string[]) => {
            const fetched = await clobRest.getBooks(tokens);
            const receivedAtMs = Date.now();
            // Asked again on arrival: the stream's snapshot may have set the reference meanwhile.
            for (const book of fetched) if (awaitsBook(book.assetId)) prices.handle(book, receivedAtMs);
          },
        }
      : {}),
    logger,
  });
  runner.on('following', (tokens) => books.followed(tokens));

  // Handover: tokens taken from a live member count as followed once the stream's snapshot of
  // them arrived; then this process says so, and the previous owners stop evaluating them.
  let confirming = new Set<string>();
  let confirmingKey = '';
  const announceReady = (key: string) =>
    shards.announceReady(key).catch((error: unknown) => logger.warn({ err: error }, 'announcing engine readiness failed'));
  stream.on('message', (msg, receivedAtMs) => {
    prices.handle(msg, receivedAtMs);
    if (confirming.size > 0 && msg.type === 'book' && confirming.delete(msg.assetId) && confirming.size === 0) {
      void announceReady(confirmingKey);
    }
  });

  const readyFrom = new Map<string, Set<number>>();
  shards.on('ready', (slot, key) => {
    let slots = readyFrom.get(key);
    if (!slots) {
      readyFrom.set(key, (slots = new Set()));
      if (readyFrom.size > READY_KEYS_KEPT) readyFrom.delete(readyFrom.keys().next().value!);
    }
    slots.add(slot);
    if (key !== shards.membersKey) return;
    let released = 0;
    for (const [token, to] of handingOver) if (to === slot && handingOver.delete(token)) released++;
    if (released === 0) return;
    logger.info({ slot: shards.slot, to: slot, released }, 'engine tokens handed over');
    watch();
  });

  /**
   * Ownership moved. Tokens given away stay evaluated until their new owner is ready. Tokens taken
   * from a live member wait for their stream snapshot, which sets the reference without firing
   * (the previous owner covers them meanwhile). Tokens of a member that is gone (crashed or
   * stopped) take the price it last evaluated and saved as the reference, so the first fresh
   * price fires exactly the crossings made while nobody followed them.
   */
  async function membersChanged(previousMembers: readonly number[], starting: boolean): Promise<void> {
    const members = shards.members;
    const key = shards.membersKey;
    const ready = readyFrom.get(key);
    handingOver.clear();
    for (const t of watched) {
      if (shards.owns(t)) continue;
      const to = shards.ownerOf(t, members);
      if (to !== undefined && !ready?.has(to)) handingOver.set(t, to);
    }
    const fromLive: string[] = [];
    const fromGone: string[] = [];
    for (const t of runner.tokens()) {
      if (!shards.owns(t) || watched.has(t)) continue;
      const before = previousMembers.length > 0 ? shards.ownerOf(t, previousMembers) : undefined;
      if (before !== undefined && before !== shards.slot && members.includes(before)) fromLive.push(t);
      else fromGone.push(t);
    }
    runner.awaitReference(fromLive);
    for (const t of fromLive) records.get(t)?.clearBook();
    // Re-arm bands as the previous owner saved them (at start, loading the rules read them).
    if (!starting) await runner.takeOverBands([...fromLive, ...fromGone]);
    // At start the saved prices are already the references (runner.start). A token whose last
    // rule went during these awaits is skipped by the runner (no record nor index left for it).
    if (fromGone.length > 0 && !starting) {
      const saved = await savedPrices.load(fromGone);
      for (const t of fromGone) {
        const price = saved.get(t);
        if (price !== undefined) runner.adoptReference(t, price);
        else runner.awaitReference([t]);
        records.get(t)?.clearBook();
      }
    }
    confirming = new Set(fromLive);
    confirmingKey = key;
    watch();
    logger.info(
      { slot: shards.slot, members, owned: watched.size - handingOver.size, handingOver: handingOver.size, fromLive: fromLive.length, fromGone: fromGone.length },
      'engine token share changed',
    );
    if (confirming.size === 0) await announceReady(key);
  }

  let changes: Promise<void> = Promise.resolve();
  const onChanged = (previousMembers: readonly number[], starting: boolean) => {
    changes = changes
      .then(() => membersChanged(previousMembers, starting))
      .catch((error: unknown) => logger.error({ err: error }, 'taking over engine tokens failed'));
    return changes;
  };

  await runner.start();
  started = true;
  // Until now the others evaluated this process's share: take it over from them. Changes seen
  // from here on queue behind it (none may pass unhandled while it runs).
  const initial = onChanged(shards.members.filter((s) => s !== shards.slot), true);
  shards.on('changed', (_view, previousMembers) => void onChanged(previousMembers, false));
  await initial;
  const catalog = createCatalogChangeConsumer({ database, logger, batching, onEventChanged: (eventId) => runner.reloadEvent(eventId) });
  await catalog.start();
  const closingSoon = createClosingSoonChecker({
    database,
    logger,
    batching,
    checkIntervalMs: config.CLOSING_SOON_CHECK_MS,
    ...(options.now ? { now: options.now } : {}),
  });
  await closingSoon.start();
  const feedHealth = startFeedHealth({
    database,
    logger,
    staleAfterMs: config.FEED_STALE_AFTER_MS,
    syncFailingAfterMs: config.SYNC_FAILING_AFTER_MS,
    checkIntervalMs: options.feedCheckIntervalMs,
    ...(options.now ? { now: options.now } : {}),
    connections: () => stream.feedState(),
    lastPrice: (token) => records.get(token)?.shown,
    // The book taken after the gap decides: evaluated by the engine like any book (a crossing
    // made in the gap fires once), then read back as the first fresh price.
    refresh: async (tokens) => {
      const mine = tokens.filter((t) => watched.has(t));
      if (clobRest && mine.length > 0) {
        const books = await clobRest.getBooks(mine);
        const receivedAtMs = Date.now();
        for (const book of books) if (watched.has(book.assetId)) prices.handle(book, receivedAtMs);
      }
      const fresh = new Map<string, number>();
      for (const t of mine) {
        const price = records.get(t)?.shown;
        if (price !== undefined) fresh.set(t, price);
      }
      return fresh;
    },
  });
  logger.info(
    { rules: runner.size, tokens: runner.tokens().length, owned: watched.size, shards: shards.view, slot: shards.slot },
    'engine started',
  );

  return {
    runner,
    catalog,
    closingSoon,
    stream,
    shards,
    feedHealth,
    feedLag: () => {
      const at = Date.now();
      return stream.feedState().map((c, connection) => ({
        connection,
        tokens: c.tokens.length,
        open: c.open,
        lagSeconds: Math.max(0, Math.round((at - c.lastMessageAtMs) / 100) / 10),
      }));
    },
    async stop() {
      books.stop();
      venueRequests.abort(new Error('engine stopping'));
      await feedHealth.stop();
      await closingSoon.stop();
      await catalog.stop();
      await changes;
      stream.close();
      await runner.stop();
      await shards.close();
    },
  };
}

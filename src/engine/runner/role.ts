import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import type { Logger } from '../../logger.js';
import { createMarketStream, type MarketStream } from '../../venue/clob/market-socket.js';
import { createClobRestClient } from '../../venue/clob/rest.js';
import { createCatalogChangeConsumer, type CatalogChangeConsumer } from './catalog-changes.js';
import { createEngineRunner, type EngineRunner } from './engine-runner.js';
import { StreamPrices } from './prices-from-stream.js';
import { joinShards, type ShardMembership } from './shards.js';

export interface EngineRoleOptions {
  database: Database;
  config: Config;
  logger: Logger;
  /** Default: config.CLOB_WS_URL. */
  clobWsUrl?: string;
  /** Default: config.CLOB_URL. */
  clobUrl?: string;
  /** For tests: a market stream of one's own instead of the venue's. */
  marketStream?: MarketStream;
  /** How often the engine processes sharing the database are counted (ms). Default 2000. */
  shardRefreshIntervalMs?: number;
}

export interface EngineRole {
  runner: EngineRunner;
  catalog: CatalogChangeConsumer;
  stream: MarketStream;
  /** This process's share of the tokens (all of them on PGlite or when it runs alone). */
  shards: ShardMembership;
  stop(): Promise<void>;
}

/** The engine role: rules from the database, prices from the venue stream, firings to the database. */
export async function startEngineRole(options: EngineRoleOptions): Promise<EngineRole> {
  const { database, config } = options;
  const logger = options.logger.child({ role: 'engine' });
  const shards = await joinShards({ database, logger, refreshIntervalMs: options.shardRefreshIntervalMs });
  const runner = createEngineRunner({ database, logger, owns: (token) => shards.owns(token) });
  const stream =
    options.marketStream ??
    createMarketStream({
      url: options.clobWsUrl ?? config.CLOB_WS_URL,
      clobRest: createClobRestClient({ baseUrl: options.clobUrl ?? config.CLOB_URL, logger, timeoutMs: 10_000 }),
      logger,
    });
  const prices = new StreamPrices((token, price, receivedAtMs, sourceEvent, sourceTimestampMs) =>
    runner.onPrice(token, price, receivedAtMs, sourceEvent, sourceTimestampMs),
  );
  // The stream carries only the tokens this process owns; a newly owned token gets its book from
  // the subscription's initial dump.
  let watched = new Set<string>();
  const watch = (tokens: readonly string[]) => {
    const next = new Set(tokens.filter((t) => shards.owns(t)));
    for (const t of watched) if (!next.has(t)) prices.book.forget(t);
    watched = next;
    stream.setTokens(next);
  };
  runner.on('tokens-changed', watch);
  shards.on('changed', (view) => {
    logger.info({ ...view, slot: shards.slot }, 'engine token share changed');
    watch(runner.tokens());
  });
  stream.on('message', (msg, receivedAtMs) => prices.handle(msg, receivedAtMs));

  await runner.start();
  watch(runner.tokens());
  const catalog = createCatalogChangeConsumer({ database, logger, onEventChanged: (eventId) => runner.reloadEvent(eventId) });
  await catalog.start();
  logger.info(
    { rules: runner.size, tokens: runner.tokens().length, owned: watched.size, shards: shards.view, slot: shards.slot },
    'engine started',
  );

  return {
    runner,
    catalog,
    stream,
    shards,
    async stop() {
      await catalog.stop();
      stream.close();
      await runner.stop();
      await shards.close();
    },
  };
}

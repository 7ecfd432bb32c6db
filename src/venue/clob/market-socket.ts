import { EventEmitter } from 'node:events';
import type { Logger } from '../../logger.js';
import { MarketConnection, type Backoff } from './connection.js';
import type { MarketMessage } from './messages.js';
import type { ClobRestClient } from './rest.js';

export interface MarketStreamOptions {
  url: string;
  clobRest: ClobRestClient;
  logger: Logger;
  maxTokensPerConnection?: number;
  pingIntervalMs?: number;
  silenceTimeoutMs?: number;
  backoff?: Backoff;
  /**
   * An opaque tag per token, asked once when the stream starts following it and carried on each of
   * its price_change entries (`PriceChangeEntry.tag`): the consumer's own record of the token, so the
   * connection's one lookup per entry (its filter) is the only one on the path.
   */
  tagOf?: (tokenId: string) => unknown;
}

export interface MarketStreamEvents {
  message: [msg: MarketMessage, receivedAtMs: number];
  /** A connection came back; its books were re-requested by REST and arrive as `book` messages. */
  reconnected: [tokenIds: string[]];
}

export interface ConnectionFeedState {
  tokens: string[];
  open: boolean;
  lastMessageAtMs: number;
}

export interface MarketStream {
  setTokens(tokenIds: Iterable<string>): void;
  addTokens(tokenIds: Iterable<string>): void;
  removeTokens(tokenIds: Iterable<string>): void;
  /** The tokens of each open connection. */
  connections(): string[][];
  /** Each connection's tokens, whether its socket is open and when its last frame arrived. */
  feedState(): ConnectionFeedState[];
  on<K extends keyof MarketStreamEvents>(event: K, listener: (...args: MarketStreamEvents[K]) => void): MarketStream;
  off<K extends keyof MarketStreamEvents>(event: K, listener: (...args: MarketStreamEvents[K]) => void): MarketStream;
  close(): void;
}

export function createMarketStream(options: MarketStreamOptions): MarketStream {
  const maxPerConnection = options.maxTokensPerConnection ?? 500;
  // Untyped inside; the MarketStream interface types the listeners.
  const emitter = new EventEmitter();
  const shards: MarketConnection[] = [];
  const shardOf = new Map<string, MarketConnection>();
  let closed = false;

  const open = (tokens: string[]) =>
    new MarketConnection(
      {
        url: options.url,
        clobRest: options.clobRest,
        logger: options.logger.child({ shard: shards.length }),
        pingIntervalMs: options.pingIntervalMs ?? 10_000,
        silenceTimeoutMs: options.silenceTimeoutMs ?? 30_000,
        backoff: options.backoff ?? { baseMs: 500, maxMs: 30_000 },
        onMessage: (msg, at) => emitter.emit('message', msg, at),
        onReconnected: (tokenIds) => emitter.emit('reconnected', tokenIds),
        ...(options.tagOf ? { tagOf: options.tagOf } : {}),
      },
      tokens,
    );

  function addTokens(tokenIds: Iterable<string>): void {
    if (closed) return;
    const pending = [...new Set(tokenIds)].filter((t) => !shardOf.has(t));
    for (const shard of shards) {
      const room = maxPerConnection - shard.tokens.size;
      if (room <= 0 || pending.length === 0) continue;
      const batch = pending.splice(0, room);
      shard.add(batch);
      for (const t of batch) shardOf.set(t, shard);
    }
    while (pending.length > 0) {
      const batch = pending.splice(0, maxPerConnection);
      const shard = open(batch);
      shards.push(shard);
      for (const t of batch) shardOf.set(t, shard);
    }
  }

  function removeTokens(tokenIds: Iterable<string>): void {
    const byShard = new Map<MarketConnection, string[]>();
    for (const t of new Set(tokenIds)) {
      const shard = shardOf.get(t);
      if (!shard) continue;
      shardOf.delete(t);
      const list = byShard.get(shard) ?? [];
      list.push(t);
      byShard.set(shard, list);
    }
    for (const [shard, tokens] of byShard) {
      shard.remove(tokens);
      if (shard.tokens.size === 0) {
        shard.close();
        shards.splice(shards.indexOf(shard), 1);
      }
    }
  }

  const stream: MarketStream = {
    setTokens(tokenIds) {
      const wanted = new Set(tokenIds);
      removeTokens([...shardOf.keys()].filter((t) => !wanted.has(t)));
      addTokens(wanted);
    },
    addTokens,
    removeTokens,
    connections: () => shards.map((s) => [...s.tokens.keys()]),
    feedState: () => shards.map((s) => ({ tokens: [...s.tokens.keys()], open: s.open, lastMessageAtMs: s.lastFrameAtMs })),
    on(event, listener) {
      emitter.on(event, listener);
      return stream;
    },
    off(event, listener) {
      emitter.off(event, listener);
      return stream;
    },
    close() {
      closed = true;
      for (const shard of shards) shard.close();
      shards.length = 0;
      shardOf.clear();
    },
  };
  return stream;
}

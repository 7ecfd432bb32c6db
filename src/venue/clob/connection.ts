import WebSocket from 'ws';
import type { Logger } from '../../logger.js';
import { assetIdsOf, parseMarketFrame, type BookMessage, type MarketMessage } from './messages.js';
import type { ClobRestClient } from './rest.js';

export interface Backoff {
  baseMs: number;
  maxMs: number;
}

export interface ConnectionOptions {
  url: string;
  clobRest: ClobRestClient;
  logger: Logger;
  pingIntervalMs: number;
  silenceTimeoutMs: number;
  backoff: Backoff;
  onMessage: (msg: MarketMessage, receivedAtMs: number) => void;
  onReconnected: (tokenIds: string[]) => void;
  /** The tag a followed token's price_change entries carry (`PriceChangeEntry.tag`), asked when it is added. */
  tagOf?: (tokenId: string) => unknown;
}

/** Full jitter over an exponential ceiling. */
export function backoffDelay(attempt: number, { baseMs, maxMs }: Backoff, random = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * One market-channel connection following a set of tokens. Keeps itself alive: PING heartbeat,
 * a silence watchdog, reconnects with back-off, and a REST reseed of its books after a reconnect.
 */
export class MarketConnection {
  /**
   * The tokens followed, each with the newest WS timestamp seen for it, so an older REST snapshot
   * never overwrites a newer update, and its id as first given. One lookup per entry of a message
   * answers all three: the message is handed on with that id in place of the one parsed from the
   * frame, so every later map lookup of the token (prices, levels, rules, the writer) compares
   * one string with itself instead of two 77-character copies, and no frame's strings are kept.
   * The same lookup gives each price_change entry the token's tag, so the consumer reaches its
   * own per-token state without a lookup of its own.
   */
  readonly tokens = new Map<string, { id: string; wsTs: number; tag: unknown }>();
  private ws: WebSocket | null = null;
  private closed = false;
  private attempt = 0;
  private everOpened = false;
  private pingTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  // Any frame (PONG included) proves the feed alive; feed health reads it on its own timer.
  private lastFrameMs = Date.now();
  // The watchdog counts silence from the later of the two.
  private connectedAtMs = 0;

  constructor(
    private readonly opts: ConnectionOptions,
    tokenIds: Iterable<string>,
  ) {
    for (const t of tokenIds) if (!this.tokens.has(t)) this.follow(t);
    this.connect();
  }

  /** When the last frame arrived (or the connection was made, before any). */
  get lastFrameAtMs(): number {
    return this.lastFrameMs;
  }

  get open(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  add(tokenIds: string[]): void {
    const added = tokenIds.filter((t) => !this.tokens.has(t));
    for (const t of added) this.follow(t);
    if (added.length > 0) this.sendIfOpen({ assets_ids: added, operation: 'subscribe' });
  }

  private follow(tokenId: string): void {
    this.tokens.set(tokenId, { id: tokenId, wsTs: 0, tag: this.opts.tagOf?.(tokenId) });
  }

  remove(tokenIds: string[]): void {
    const removed = tokenIds.filter((t) => this.tokens.delete(t));
    if (removed.length > 0) this.sendIfOpen({ assets_ids: removed, operation: 'unsubscribe' });
  }

  close(): void {
    this.closed = true;
    this.clearTimers();
    clearTimeout(this.reconnectTimer);
    this.ws?.removeAllListeners();
    this.ws?.on('error', () => {});
    this.ws?.terminate();
    this.ws = null;
  }

  private connect(): void {
    if (this.closed) return;
    // Frames are decoded by `toString` (bad UTF-8 becomes U+FFFD and then fails as JSON or as a
    // field), so ws's own validation pass over every byte buys nothing.
    const ws = new WebSocket(this.opts.url, { skipUTF8Validation: true });
    this.ws = ws;
    this.connectedAtMs = Date.now();
    this.armWatchdog(this.opts.silenceTimeoutMs);
    ws.on('open', () => this.onOpen());
    ws.on('message', (data, isBinary) => this.onFrame(isBinary ? '' : data.toString()));
    ws.on('error', (err) => this.opts.logger.debug({ err: err.message }, 'market socket error'));
    ws.on('close', (code) => this.onClose(ws, code));
  }

  private onOpen(): void {
    const tokens = [...this.tokens.keys()];
    this.send({ assets_ids: tokens, type: 'market', initial_dump: true, custom_feature_enabled: true });
    this.pingTimer = setInterval(() => this.sendIfOpen('PING'), this.opts.pingIntervalMs);
    if (this.everOpened) {
      this.opts.logger.info({ tokens: tokens.length }, 'market socket reconnected');
      void this.reseed(tokens);
      this.opts.onReconnected(tokens);
    }
    this.everOpened = true;
  }

  private onFrame(text: string): void {
    const receivedAt = Date.now();
    this.lastFrameMs = receivedAt;
    this.attempt = 0;
    if (text === 'PONG' || text === '') return;
    if (text === 'INVALID OPERATION') {
      this.opts.logger.warn('market socket answered INVALID OPERATION');
      return;
    }
    for (const msg of parseMarketFrame(text, this.opts.logger)) this.deliver(msg, receivedAt, false);
  }

  private deliver(msg: MarketMessage, receivedAt: number, fromRest: boolean): void {
    if (msg.type === 'new_market') return this.opts.onMessage(msg, receivedAt);
    if (msg.type === 'price_change') {
      // Every entry is normally for a followed token: the message is passed on as it is, and only
      // one arriving for tokens just unfollowed is copied without them.
      const changes = msg.changes;
      let followed = 0;
      for (let i = 0; i < changes.length; i++) {
        const c = changes[i]!;
        const seen = this.tokens.get(c.assetId);
        if (seen === undefined) continue;
        followed++;
        c.assetId = seen.id;
        c.tag = seen.tag;
        if (!fromRest && msg.timestampMs > seen.wsTs) seen.wsTs = msg.timestampMs;
      }
      if (followed === 0) return;
      if (followed < changes.length) msg = { ...msg, changes: changes.filter((c) => this.tokens.has(c.assetId)) };
      return this.opts.onMessage(msg, receivedAt);
    }
    let any = false;
    for (const t of assetIdsOf(msg)) {
      const seen = this.tokens.get(t);
      if (seen === undefined) continue;
      any = true;
      if ('assetId' in msg) msg.assetId = seen.id;
      if (!fromRest && msg.timestampMs > seen.wsTs) seen.wsTs = msg.timestampMs;
    }
    if (any) this.opts.onMessage(msg, receivedAt);
  }

  private async reseed(tokens: string[]): Promise<void> {
    let books: BookMessage[];
    try {
      books = await this.opts.clobRest.getBooks(tokens);
    } catch (err) {
      this.opts.logger.warn({ err: (err as Error).message, tokens: tokens.length }, 'book reseed after reconnect failed');
      return;
    }
    const receivedAt = Date.now();
    for (const book of books) {
      if (this.closed || book.timestampMs < (this.tokens.get(book.assetId)?.wsTs ?? 0)) continue;
      this.deliver(book, receivedAt, true);
    }
  }

  private onClose(ws: WebSocket, code: number): void {
    if (ws !== this.ws) return;
    this.clearTimers();
    this.ws = null;
    if (this.closed) return;
    const delay = backoffDelay(this.attempt++, this.opts.backoff);
    this.opts.logger.debug({ code, delay }, 'market socket closed; reconnecting');
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  // Covers a stalled handshake too: armed at connect. A frame does not re-arm it (a timer per
  // frame costs more than the frame's parsing at the feed's rate): when it fires, it waits again
  // for what is left of the timeout since the last frame, and only a full timeout of silence ends
  // the connection.
  private armWatchdog(delayMs: number): void {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => {
      const silentMs = Date.now() - Math.max(this.lastFrameMs, this.connectedAtMs);
      if (silentMs < this.opts.silenceTimeoutMs) return this.armWatchdog(this.opts.silenceTimeoutMs - silentMs);
      this.opts.logger.warn({ silenceMs: this.opts.silenceTimeoutMs }, 'market socket silent; reconnecting');
      this.ws?.terminate();
    }, delayMs);
  }

  private clearTimers(): void {
    clearInterval(this.pingTimer);
    clearTimeout(this.watchdog);
  }

  private sendIfOpen(payload: unknown): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.send(payload);
  }

  private send(payload: unknown): void {
    this.ws?.send(typeof payload === 'string' ? payload : JSON.stringify(payload));
  }
}

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
  readonly tokens = new Set<string>();
  private ws: WebSocket | null = null;
  private closed = false;
  private attempt = 0;
  private everOpened = false;
  private pingTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  // Newest WS timestamp per token, so an older REST snapshot never overwrites a newer update.
  private readonly lastWsTs = new Map<string, number>();
  // Any frame (PONG included) proves the feed alive; feed health reads it on its own timer.
  private lastFrameMs = Date.now();

  constructor(
    private readonly opts: ConnectionOptions,
    tokenIds: Iterable<string>,
  ) {
    for (const t of tokenIds) this.tokens.add(t);
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
    for (const t of added) this.tokens.add(t);
    if (added.length > 0) this.sendIfOpen({ assets_ids: added, operation: 'subscribe' });
  }

  remove(tokenIds: string[]): void {
    const removed = tokenIds.filter((t) => this.tokens.delete(t));
    for (const t of removed) this.lastWsTs.delete(t);
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
    const ws = new WebSocket(this.opts.url);
    this.ws = ws;
    this.armWatchdog();
    ws.on('open', () => this.onOpen());
    ws.on('message', (data, isBinary) => this.onFrame(isBinary ? '' : data.toString()));
    ws.on('error', (err) => this.opts.logger.debug({ err: err.message }, 'market socket error'));
    ws.on('close', (code) => this.onClose(ws, code));
  }

  private onOpen(): void {
    const tokens = [...this.tokens];
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
    this.armWatchdog();
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
      const changes = msg.changes.filter((c) => this.tokens.has(c.assetId));
      if (changes.length === 0) return;
      msg = { ...msg, changes };
    } else if (!assetIdsOf(msg).some((t) => this.tokens.has(t))) {
      return;
    }
    if (!fromRest) for (const t of assetIdsOf(msg)) this.lastWsTs.set(t, Math.max(msg.timestampMs, this.lastWsTs.get(t) ?? 0));
    this.opts.onMessage(msg, receivedAt);
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
      if (this.closed || book.timestampMs < (this.lastWsTs.get(book.assetId) ?? 0)) continue;
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

  // Covers a stalled handshake too: armed at connect, re-armed by every frame.
  private armWatchdog(): void {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => {
      this.opts.logger.warn({ silenceMs: this.opts.silenceTimeoutMs }, 'market socket silent; reconnecting');
      this.ws?.terminate();
    }, this.opts.silenceTimeoutMs);
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

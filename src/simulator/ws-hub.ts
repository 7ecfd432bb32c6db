import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { SimState } from './state.js';
import { bookMessage, wireAssetIds, type WireMessage } from './wire.js';

const Initial = z.object({
  assets_ids: z.array(z.string()),
  type: z.string(),
  initial_dump: z.boolean().optional(),
  custom_feature_enabled: z.boolean().optional(),
});
const Operation = z.object({ assets_ids: z.array(z.string()), operation: z.enum(['subscribe', 'unsubscribe']) });

interface Client {
  ws: WebSocket;
  tokens: Set<string>;
  subscribed: boolean;
  customFeatures: boolean;
  idleTimer: NodeJS.Timeout;
}

export interface WsHubOptions {
  path: string;
  idleCloseMs: number;
  logger: Logger;
}

/** The market channel: subscriptions per connection and fan-out of the state's messages. */
export class WsHub {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly clients = new Set<Client>();
  private refuseUntil = 0;
  private stallUntil = 0;
  private dumpCount = 0;

  constructor(
    private readonly state: SimState,
    private readonly opts: WsHubOptions,
  ) {}

  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path !== this.opts.path || Date.now() < this.refuseUntil) {
        socket.end(`HTTP/1.1 ${path === this.opts.path ? '503 Service Unavailable' : '404 Not Found'}\r\nConnection: close\r\n\r\n`);
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws));
    });
  }

  get connectionCount(): number {
    return this.clients.size;
  }

  /**
   * Every connection, new ones included, stays open but sends nothing for `ms`: no data, no PONG,
   * no close. What is published meanwhile is dropped, as a stalled venue loses it; subscriptions
   * made meanwhile still count, so data for them flows once the stall ends. 0 ends a stall.
   */
  stall(ms: number): Date {
    this.stallUntil = Date.now() + ms;
    return new Date(this.stallUntil);
  }

  private get stalled(): boolean {
    return Date.now() < this.stallUntil;
  }

  /** Sends each message to the connections following one of its tokens (market-wide ones to all). */
  publish(messages: WireMessage[], asOneFrame: boolean): void {
    if (this.stalled) return;
    for (const client of this.clients) {
      const mine = messages.filter((m) => this.wants(client, m));
      if (mine.length === 0 || client.ws.readyState !== WebSocket.OPEN) continue;
      if (asOneFrame) client.ws.send(JSON.stringify(mine));
      else for (const m of mine) client.ws.send(JSON.stringify(m));
    }
  }

  /** Drops every connection; new ones are refused for `refuseMs`. */
  disconnectAll(refuseMs = 0): number {
    this.refuseUntil = Date.now() + refuseMs;
    const n = this.clients.size;
    for (const c of this.clients) c.ws.terminate();
    return n;
  }

  close(): void {
    this.disconnectAll();
    this.wss.close();
  }

  private wants(client: Client, m: WireMessage): boolean {
    if (m.event_type === 'new_market') return client.customFeatures;
    if ((m.event_type === 'best_bid_ask' || m.event_type === 'market_resolved') && !client.customFeatures) return false;
    return wireAssetIds(m).some((t) => client.tokens.has(t));
  }

  private onConnection(ws: WebSocket): void {
    const client: Client = {
      ws,
      tokens: new Set(),
      subscribed: false,
      customFeatures: false,
      idleTimer: setTimeout(() => this.closeIdle(client), this.opts.idleCloseMs),
    };
    this.clients.add(client);
    ws.on('message', (data) => this.onMessage(client, data.toString()));
    ws.on('close', () => {
      clearTimeout(client.idleTimer);
      this.clients.delete(client);
    });
    ws.on('error', (err) => this.opts.logger.debug({ err: err.message }, 'simulator ws error'));
  }

  // A close frame is something sent: a stalled feed leaves even idle connections open until it ends.
  private closeIdle(client: Client): void {
    if (this.stalled) client.idleTimer = setTimeout(() => this.closeIdle(client), this.stallUntil - Date.now());
    else client.ws.close(1008, 'no subscription');
  }

  /** Answers a client unless the feed is stalled. */
  private reply(client: Client, text: string): void {
    if (!this.stalled) client.ws.send(text);
  }

  private onMessage(client: Client, text: string): void {
    if (text === 'PING') return this.reply(client, 'PONG');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return this.reply(client, 'INVALID OPERATION');
    }
    const initial = Initial.safeParse(json);
    if (initial.success) {
      if (client.subscribed) return this.reply(client, 'INVALID OPERATION');
      client.subscribed = true;
      clearTimeout(client.idleTimer);
      client.customFeatures = initial.data.custom_feature_enabled ?? false;
      for (const t of initial.data.assets_ids) client.tokens.add(t);
      if (initial.data.initial_dump !== false) this.dump(client, initial.data.assets_ids);
      return;
    }
    const op = Operation.safeParse(json);
    if (!op.success) return this.reply(client, 'INVALID OPERATION');
    client.subscribed = true;
    clearTimeout(client.idleTimer);
    if (op.data.operation === 'unsubscribe') {
      for (const t of op.data.assets_ids) client.tokens.delete(t);
      return;
    }
    const added = op.data.assets_ids.filter((t) => !client.tokens.has(t));
    for (const t of added) client.tokens.add(t);
    this.dump(client, added);
  }

  // One JSON array of `book` snapshots; every other dump writes prices as ".48" like the venue does.
  private dump(client: Client, tokens: string[]): void {
    const leadingDot = this.dumpCount++ % 2 === 1;
    const books = tokens.flatMap((t) => {
      const b = this.state.books.get(t);
      return b ? [bookMessage(b, leadingDot)] : [];
    });
    if (books.length > 0) this.reply(client, JSON.stringify(books));
  }
}

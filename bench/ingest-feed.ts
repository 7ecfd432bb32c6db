// The ingest bench's feed: markets and their books, a recorded stream of venue messages in the
// market channel's wire format (shared/venue/FORMATS.md section 2), and a local WebSocket server that
// answers subscriptions like the venue (an initial dump of `book` snapshots as one array) and then
// replays the recorded frames as fast as the client's socket takes them.
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { prng } from './support.js';

export interface FeedMarket {
  conditionId: string;
  /** Yes and No token ids (77 digits, as the venue's). */
  yes: string;
  no: string;
  /** The Yes token's starting midpoint, in cents. */
  midCents: number;
}

/** The same markets for a seed in every process (the clients build their rules from them). */
export function feedMarkets(count: number, seed: number): FeedMarket[] {
  const random = prng(seed);
  const digits = (n: number) => Array.from({ length: n }, (_, i) => String(i === 0 ? 1 + Math.floor(random() * 9) : Math.floor(random() * 10))).join('');
  const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(random() * 16)]).join('');
  return Array.from({ length: count }, () => ({ conditionId: `0x${hex(64)}`, yes: digits(77), no: digits(77), midCents: 10 + Math.floor(random() * 80) }));
}

/** One side of a Yes book: size by price in cents. */
type Side = Map<number, number>;

interface Book {
  market: FeedMarket;
  bids: Side;
  asks: Side;
  hash: string;
}

const price = (cents: number) => String(cents / 100);
const best = (side: Side, highest: boolean) => {
  let b: number | undefined;
  for (const p of side.keys()) if (b === undefined || (highest ? p > b : p < b)) b = p;
  return b;
};

function startBook(market: FeedMarket, random: () => number): Book {
  const bids: Side = new Map();
  const asks: Side = new Map();
  for (let i = 0; i < 5; i++) {
    if (market.midCents - 1 - i > 0) bids.set(market.midCents - 1 - i, Math.round(random() * 500_000) / 100);
    if (market.midCents + 1 + i < 100) asks.set(market.midCents + 1 + i, Math.round(random() * 500_000) / 100);
  }
  return { market, bids, asks, hash: '' };
}

/** `book` snapshots of both tokens of a market (the No book mirrors the Yes book: its bids are 1 - the Yes asks). */
function bookMessages(b: Book, ts: number): object[] {
  const levels = (side: Side, flip: boolean, ascending: boolean) =>
    [...side]
      .map(([p, size]) => ({ p: flip ? 100 - p : p, size }))
      .sort((x, y) => (ascending ? x.p - y.p : y.p - x.p))
      .map(({ p, size }) => ({ price: price(p), size: String(size) }));
  const common = { market: b.market.conditionId, timestamp: String(ts), hash: b.hash || '0'.repeat(40), tick_size: '0.01' };
  return [
    { event_type: 'book', asset_id: b.market.yes, ...common, bids: levels(b.bids, false, true), asks: levels(b.asks, false, false) },
    { event_type: 'book', asset_id: b.market.no, ...common, bids: levels(b.asks, true, true), asks: levels(b.bids, true, false) },
  ];
}

interface Change {
  /** true: a Yes bid level (a No ask level at 100 - cents). */
  bid: boolean;
  cents: number;
  size: number;
}

/**
 * One order-book event of a market as the venue reports it: a level's size changed (most of them,
 * the top of book unchanged), a better level placed inside the spread, or the best level taken
 * (with a deeper level placed behind it). Both tokens' entries in one `price_change`, each with its
 * token's top of book after the change.
 */
function nextChanges(b: Book, random: () => number): Change[] {
  const size = () => Math.round(random() * 500_000) / 100;
  const bidTop = best(b.bids, true);
  const askTop = best(b.asks, false);
  const r = random();
  const bidSide = random() < 0.5;
  const side = bidSide ? b.bids : b.asks;
  const top = bidSide ? bidTop : askTop;
  if (r < 0.7 || top === undefined || bidTop === undefined || askTop === undefined) {
    const levels = [...side.keys()];
    if (levels.length === 0) return [{ bid: bidSide, cents: bidSide ? 1 : 99, size: size() }];
    return [{ bid: bidSide, cents: levels[Math.floor(random() * levels.length)]!, size: size() }];
  }
  if (r < 0.85 && askTop - bidTop > 1) return [{ bid: bidSide, cents: bidSide ? bidTop + 1 : askTop - 1, size: size() }];
  if (side.size <= 1) {
    // A one-level side grows behind its top (or, at the edge of the price range, changes size).
    const behind = bidSide ? bidTop - 1 : askTop + 1;
    return [{ bid: bidSide, cents: behind > 0 && behind < 100 ? behind : top, size: size() }];
  }
  // The best level is taken; a deeper one appears behind the book so its depth stays about the same.
  const deepest = bidSide ? Math.min(...side.keys()) - 1 : Math.max(...side.keys()) + 1;
  const changes: Change[] = [{ bid: bidSide, cents: top, size: 0 }];
  if (deepest > 0 && deepest < 100) changes.push({ bid: bidSide, cents: deepest, size: size() });
  return changes;
}

function apply(b: Book, changes: Change[]): void {
  for (const c of changes) {
    const side = c.bid ? b.bids : b.asks;
    if (c.size > 0) side.set(c.cents, c.size);
    else side.delete(c.cents);
  }
}

function priceChange(b: Book, changes: Change[], ts: number, random: () => number): object {
  b.hash = Array.from({ length: 40 }, () => '0123456789abcdef'[Math.floor(random() * 16)]).join('');
  const bidTop = best(b.bids, true);
  const askTop = best(b.asks, false);
  const top = (cents: number | undefined, flip: boolean) => (cents === undefined ? '' : price(flip ? 100 - cents : cents));
  const m = b.market;
  return {
    event_type: 'price_change',
    market: m.conditionId,
    price_changes: [
      ...changes.map((c) => ({ asset_id: m.yes, price: price(c.cents), size: String(c.size), side: c.bid ? 'BUY' : 'SELL', hash: b.hash, best_bid: top(bidTop, false), best_ask: top(askTop, false) })),
      ...changes.map((c) => ({ asset_id: m.no, price: price(100 - c.cents), size: String(c.size), side: c.bid ? 'SELL' : 'BUY', hash: b.hash, best_bid: top(askTop, true), best_ask: top(bidTop, true) })),
    ],
    timestamp: String(ts),
  };
}

/** An unmasked server text frame (RFC 6455 5.2), built once so the replay costs the server nothing per frame. */
function wsFrame(text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const n = payload.length;
  const header = n < 126 ? Buffer.from([0x81, n]) : n < 65536 ? Buffer.from([0x81, 126, n >> 8, n & 0xff]) : Buffer.alloc(10);
  if (n >= 65536) {
    header[0] = 0x81;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(n), 2);
  }
  return Buffer.concat([header, payload]);
}

export interface RecordedFeed {
  markets: FeedMarket[];
  /** The initial dump: every token's `book`, one JSON array (what a subscription answers). */
  initialDump: string;
  /** One cycle of frames, in chunks of whole WebSocket frames. */
  chunks: Buffer[];
  /** Venue messages (JSON objects) and frames in one cycle. */
  messagesPerCycle: number;
  framesPerCycle: number;
  bytesPerCycle: number;
  /** Share of frames carrying an array of several messages. */
  arrayFrames: number;
}

export interface FeedOptions {
  markets: number;
  /** price_change messages per cycle. */
  changes: number;
  seed: number;
}

/**
 * One cycle of the feed: a `book` of every token (the venue sends one after trades; here it also
 * brings every book back to the start, so cycles can be replayed back to back), then `changes`
 * price_change messages on random markets (a few markets busier than the rest), 70% of frames one
 * message, the rest arrays of 2-8 (a burst the venue batched).
 */
export function recordFeed(o: FeedOptions): RecordedFeed {
  const random = prng(o.seed + 1);
  const markets = feedMarkets(o.markets, o.seed);
  const books = markets.map((m) => startBook(m, random));
  const ts0 = 1_763_800_000_000;
  const startBooks = books.flatMap((b) => bookMessages(b, ts0));
  const initialDump = JSON.stringify(startBooks);
  const frames: string[] = startBooks.map((m) => JSON.stringify(m));
  let messages = startBooks.length;
  let arrays = 0;
  let ts = ts0;
  for (let left = o.changes; left > 0; ) {
    const n = random() < 0.7 ? 1 : Math.min(left, 2 + Math.floor(random() * 7));
    const batch: string[] = [];
    for (let i = 0; i < n; i++) {
      // Busy markets: a quarter of the messages fall on the first 2% of the markets.
      const book = books[random() < 0.25 ? Math.floor(random() * Math.max(1, o.markets / 50)) : Math.floor(random() * o.markets)]!;
      const changes = nextChanges(book, random);
      apply(book, changes);
      batch.push(JSON.stringify(priceChange(book, changes, ++ts, random)));
    }
    frames.push(n === 1 ? batch[0]! : `[${batch.join(',')}]`);
    if (n > 1) arrays++;
    messages += n;
    left -= n;
  }
  const chunks: Buffer[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let bytes = 0;
  for (const f of frames) {
    const frame = wsFrame(f);
    pending.push(frame);
    pendingBytes += frame.length;
    bytes += frame.length;
    if (pendingBytes >= 256 * 1024) {
      chunks.push(Buffer.concat(pending));
      pending = [];
      pendingBytes = 0;
    }
  }
  if (pending.length > 0) chunks.push(Buffer.concat(pending));
  return { markets, initialDump, chunks, messagesPerCycle: messages, framesPerCycle: frames.length, bytesPerCycle: bytes, arrayFrames: arrays / frames.length };
}

export interface FeedServer {
  /** ws://127.0.0.1:<port>/ws/market */
  wsUrl: string;
  httpUrl: string;
  /** Resolves with the next connection once it follows every token of the feed. */
  nextSubscribed(): Promise<FeedConnection>;
  close(): Promise<void>;
}

export interface FeedConnection {
  /** Writes `cycles` cycles of the recorded frames, waiting whenever the socket's buffer is full. */
  replay(cycles: number): Promise<void>;
}

/**
 * The venue's market channel on 127.0.0.1: the initial form and `subscribe` operations (answered
 * with the `book` snapshots of the tokens added, as one array), `PING` → `PONG`. The replay writes
 * the recorded frames straight to the connection's socket.
 */
export async function startFeedServer(feed: RecordedFeed): Promise<FeedServer> {
  const all = new Set(feed.markets.flatMap((m) => [m.yes, m.no]));
  const books = new Map<string, object>();
  for (const b of JSON.parse(feed.initialDump) as { asset_id: string }[]) books.set(b.asset_id, b);
  const server: Server = createServer((req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"the ingest feed serves the market channel only"}');
  });
  const wss = new WebSocketServer({ server, path: '/ws/market' });
  const waiting: ((c: FeedConnection) => void)[] = [];
  wss.on('connection', (ws: WebSocket, req) => {
    const socket = req.socket as Socket;
    const followed = new Set<string>();
    let announced = false;
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? '' : data.toString();
      if (text === 'PING') return ws.send('PONG');
      let m: { assets_ids?: unknown; type?: unknown; operation?: unknown };
      try {
        m = JSON.parse(text) as typeof m;
      } catch {
        return ws.send('INVALID OPERATION');
      }
      if (!Array.isArray(m.assets_ids) || (m.type !== 'market' && m.operation !== 'subscribe')) return;
      const added = (m.assets_ids as string[]).filter((t) => all.has(t) && !followed.has(t));
      for (const t of added) followed.add(t);
      if (added.length > 0) ws.send(JSON.stringify(added.map((t) => books.get(t))));
      if (!announced && followed.size === all.size) {
        announced = true;
        waiting.shift()?.({ replay: (cycles) => replay(socket, feed.chunks, cycles) });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    wsUrl: `ws://127.0.0.1:${port}/ws/market`,
    httpUrl: `http://127.0.0.1:${port}`,
    nextSubscribed: () => new Promise((resolve) => waiting.push(resolve)),
    async close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function replay(socket: Socket, chunks: Buffer[], cycles: number): Promise<void> {
  for (let c = 0; c < cycles; c++) {
    for (const chunk of chunks) {
      if (socket.destroyed) throw new Error('the client closed its socket during the replay');
      if (!socket.write(chunk)) await new Promise((resolve) => socket.once('drain', resolve));
    }
  }
}

import { z } from 'zod';
import type { Logger } from '../../logger.js';
import { plainDecimal } from './decimal.js';

// The four messages that arrive many times a second (book, price_change, last_trade_price,
// best_bid_ask) are checked by hand: zod per message would dominate the ingest path. The rare ones
// (tick_size_change, new_market, market_resolved) keep zod schemas.

export type Side = 'BUY' | 'SELL';

export interface Level {
  price: number;
  size: number;
}

export interface BookMessage {
  type: 'book';
  assetId: string;
  market: string;
  bids: Level[];
  asks: Level[];
  /** Max bid / min ask, computed (the venue's order is not trusted); `null` for an empty side. */
  bestBid: number | null;
  bestAsk: number | null;
  timestampMs: number;
  hash: string | null;
  tickSize: number | null;
  lastTradePrice: number | null;
}

export interface PriceChangeEntry {
  assetId: string;
  price: number;
  size: number;
  side: Side;
  /** The token's top of book after the message; `null` for an empty side, and always in the legacy form. */
  bestBid: number | null;
  bestAsk: number | null;
  /**
   * The followed token's tag as the stream was given it (`MarketStreamOptions.tagOf`), set by the
   * connection's filter; undefined as parsed. Opaque to the venue client.
   */
  tag?: unknown;
}

export interface PriceChangeMessage {
  type: 'price_change';
  market: string;
  timestampMs: number;
  /** The pre-Sept-2025 form (one `asset_id`, `changes`): it carries no top of book. */
  legacy: boolean;
  changes: PriceChangeEntry[];
}

export interface LastTradeMessage {
  type: 'last_trade_price';
  assetId: string;
  market: string;
  price: number;
  side: Side | null;
  size: number | null;
  timestampMs: number;
  /** Sent on some trades only. */
  transactionHash: string | null;
}

export interface BestBidAskMessage {
  type: 'best_bid_ask';
  assetId: string;
  market: string;
  bestBid: number | null;
  bestAsk: number | null;
  timestampMs: number;
}

type Raw = Record<string, unknown>;
const MALFORMED = Symbol('malformed');
type Parsed<T> = T | typeof MALFORMED;

/** A decimal string (".48", "0.48") or a JSON number; anything else is malformed. */
function num(v: unknown): number | typeof MALFORMED {
  if (typeof v === 'string') {
    const plain = plainDecimal(v);
    if (plain >= 0) return plain;
  }
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : MALFORMED;
}

/** Absent, null, empty or not a number: `null`. */
function optNum(v: unknown): number | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v === 'string') {
    const plain = plainDecimal(v);
    if (plain >= 0) return plain;
  }
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : null;
}

const isRaw = (v: unknown): v is Raw => typeof v === 'object' && v !== null;
const isSide = (v: unknown): v is Side => v === 'BUY' || v === 'SELL';

function levels(v: unknown): Parsed<Level[]> {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return MALFORMED;
  const out: Level[] = new Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const l: unknown = v[i];
    if (!isRaw(l)) return MALFORMED;
    const price = num(l.price);
    const size = num(l.size);
    if (price === MALFORMED || size === MALFORMED) return MALFORMED;
    out[i] = { price, size };
  }
  return out;
}

/** A `book` message, from the WebSocket or a `POST /books` answer (which has no `event_type`). */
export function parseBook(m: unknown): BookMessage | null {
  if (!isRaw(m) || typeof m.asset_id !== 'string' || typeof m.market !== 'string') return null;
  const bids = levels(m.bids);
  const asks = levels(m.asks);
  if (bids === MALFORMED || asks === MALFORMED) return null;
  let bestBid: number | null = null;
  for (const l of bids) if (bestBid === null || l.price > bestBid) bestBid = l.price;
  let bestAsk: number | null = null;
  for (const l of asks) if (bestAsk === null || l.price < bestAsk) bestAsk = l.price;
  return {
    type: 'book',
    assetId: m.asset_id,
    market: m.market,
    bids,
    asks,
    bestBid,
    bestAsk,
    timestampMs: optNum(m.timestamp) ?? 0,
    hash: typeof m.hash === 'string' ? m.hash : null,
    tickSize: optNum(m.tick_size),
    lastTradePrice: optNum(m.last_trade_price),
  };
}

// Since Sept 2025 a price_change lists `price_changes` (each with its asset and top of book);
// before, one asset_id carried `changes` without a top of book. Both become the same shape.
function parsePriceChange(m: Raw): PriceChangeMessage | null {
  if (typeof m.market !== 'string') return null;
  const timestampMs = optNum(m.timestamp) ?? 0;
  if (Array.isArray(m.price_changes)) {
    const changes: PriceChangeEntry[] = new Array(m.price_changes.length);
    for (let i = 0; i < changes.length; i++) {
      const c: unknown = m.price_changes[i];
      if (!isRaw(c) || typeof c.asset_id !== 'string' || !isSide(c.side)) return null;
      const price = num(c.price);
      const size = num(c.size);
      if (price === MALFORMED || size === MALFORMED) return null;
      changes[i] = { assetId: c.asset_id, price, size, side: c.side, bestBid: optNum(c.best_bid), bestAsk: optNum(c.best_ask), tag: undefined };
    }
    return { type: 'price_change', market: m.market, timestampMs, legacy: false, changes };
  }
  if (typeof m.asset_id !== 'string' || !Array.isArray(m.changes)) return null;
  const assetId = m.asset_id;
  const changes: PriceChangeEntry[] = new Array(m.changes.length);
  for (let i = 0; i < changes.length; i++) {
    const c: unknown = m.changes[i];
    if (!isRaw(c) || !isSide(c.side)) return null;
    const price = num(c.price);
    const size = num(c.size);
    if (price === MALFORMED || size === MALFORMED) return null;
    changes[i] = { assetId, price, size, side: c.side, bestBid: null, bestAsk: null, tag: undefined };
  }
  return { type: 'price_change', market: m.market, timestampMs, legacy: true, changes };
}

function parseLastTrade(m: Raw): LastTradeMessage | null {
  if (typeof m.asset_id !== 'string' || typeof m.market !== 'string') return null;
  const price = num(m.price);
  if (price === MALFORMED) return null;
  if (m.side !== undefined && m.side !== null && !isSide(m.side)) return null;
  return {
    type: 'last_trade_price',
    assetId: m.asset_id,
    market: m.market,
    price,
    side: isSide(m.side) ? m.side : null,
    size: optNum(m.size),
    timestampMs: optNum(m.timestamp) ?? 0,
    transactionHash: typeof m.transaction_hash === 'string' && m.transaction_hash !== '' ? m.transaction_hash : null,
  };
}

function parseBestBidAsk(m: Raw): BestBidAskMessage | null {
  if (typeof m.asset_id !== 'string' || typeof m.market !== 'string') return null;
  return {
    type: 'best_bid_ask',
    assetId: m.asset_id,
    market: m.market,
    bestBid: optNum(m.best_bid),
    bestAsk: optNum(m.best_ask),
    timestampMs: optNum(m.timestamp) ?? 0,
  };
}

const price = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const n = num(v);
  if (n === MALFORMED) {
    ctx.addIssue({ code: 'custom', message: `not a number: ${String(v)}` });
    return z.NEVER;
  }
  return n;
});
const timestamp = z.unknown().transform((v) => optNum(v) ?? 0);
const strings = z.array(z.union([z.string(), z.number()]).transform(String));

const TickSizeSchema = z
  .object({ asset_id: z.string(), market: z.string(), old_tick_size: price, new_tick_size: price, timestamp })
  .transform((m) => ({
    type: 'tick_size_change' as const,
    assetId: m.asset_id,
    market: m.market,
    oldTickSize: m.old_tick_size,
    newTickSize: m.new_tick_size,
    timestampMs: m.timestamp,
  }));

const NewMarketSchema = z
  .object({
    id: z.union([z.string(), z.number()]).transform(String),
    question: z.string().default(''),
    market: z.string(),
    slug: z.string().default(''),
    assets_ids: strings.optional(),
    clob_token_ids: strings.optional(),
    outcomes: strings.default([]),
    active: z.boolean().optional(),
    timestamp,
    event_message: z.object({ id: z.union([z.string(), z.number()]).transform(String), slug: z.string().optional(), title: z.string().optional() }).optional(),
  })
  .transform((m) => ({
    type: 'new_market' as const,
    marketId: m.id,
    question: m.question,
    market: m.market,
    slug: m.slug,
    assetIds: m.assets_ids ?? m.clob_token_ids ?? [],
    outcomes: m.outcomes,
    active: m.active ?? true,
    event: m.event_message ? { id: m.event_message.id, slug: m.event_message.slug ?? '', title: m.event_message.title ?? '' } : null,
    timestampMs: m.timestamp,
  }));

const ResolvedSchema = z
  .object({ market: z.string(), assets_ids: strings.default([]), winning_asset_id: z.string().nullish(), winning_outcome: z.string().nullish(), timestamp })
  .transform((m) => ({
    type: 'market_resolved' as const,
    market: m.market,
    assetIds: m.assets_ids,
    winningAssetId: m.winning_asset_id ?? null,
    winningOutcome: m.winning_outcome ?? null,
    timestampMs: m.timestamp,
  }));

export type TickSizeChangeMessage = z.output<typeof TickSizeSchema>;
export type NewMarketMessage = z.output<typeof NewMarketSchema>;
export type MarketResolvedMessage = z.output<typeof ResolvedSchema>;
export type MarketMessage =
  | BookMessage
  | PriceChangeMessage
  | LastTradeMessage
  | TickSizeChangeMessage
  | BestBidAskMessage
  | NewMarketMessage
  | MarketResolvedMessage;

const viaZod =
  <T>(schema: z.ZodType<T>) =>
  (m: Raw): T | null => {
    const parsed = schema.safeParse(m);
    return parsed.success ? parsed.data : null;
  };

const PARSERS: Record<string, (m: Raw) => MarketMessage | null> = {
  book: parseBook,
  price_change: parsePriceChange,
  last_trade_price: parseLastTrade,
  tick_size_change: viaZod(TickSizeSchema),
  best_bid_ask: parseBestBidAsk,
  new_market: viaZod(NewMarketSchema),
  market_resolved: viaZod(ResolvedSchema),
};

/**
 * Parses one WebSocket text frame (an object or an array of objects) into typed messages.
 * Unknown or malformed messages are skipped with a debug log; `PONG` and other bare texts give [].
 */
export function parseMarketFrame(data: string, logger: Logger): MarketMessage[] {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    logger.debug({ frame: data.slice(0, 80) }, 'non-JSON market frame ignored');
    return [];
  }
  if (!Array.isArray(json)) {
    const msg = parseMarketMessage(json, logger);
    return msg ? [msg] : [];
  }
  const out: MarketMessage[] = [];
  for (const item of json) {
    const msg = parseMarketMessage(item, logger);
    if (msg) out.push(msg);
  }
  return out;
}

export function parseMarketMessage(item: unknown, logger: Logger): MarketMessage | null {
  const type = isRaw(item) ? item.event_type : undefined;
  const parse = typeof type === 'string' && Object.hasOwn(PARSERS, type) ? PARSERS[type] : undefined;
  if (parse === undefined) {
    logger.debug({ eventType: type }, 'unknown market message skipped');
    return null;
  }
  const msg = parse(item as Raw);
  if (msg === null) logger.debug({ eventType: type }, 'malformed market message skipped');
  return msg;
}

/** The tokens a message is about (empty for messages about a whole market). */
export function assetIdsOf(msg: MarketMessage): string[] {
  switch (msg.type) {
    case 'price_change':
      return [...new Set(msg.changes.map((c) => c.assetId))];
    case 'new_market':
    case 'market_resolved':
      return msg.assetIds;
    default:
      return [msg.assetId];
  }
}

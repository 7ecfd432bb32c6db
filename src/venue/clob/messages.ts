import { z } from 'zod';
import type { Logger } from '../../logger.js';

const price = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : v.trim() === '' ? Number.NaN : Number(v);
  if (!Number.isFinite(n)) {
    ctx.addIssue({ code: 'custom', message: `not a number: ${String(v)}` });
    return z.NEVER;
  }
  return n;
});
const optionalPrice = z
  .union([z.string(), z.number(), z.null()])
  .optional()
  .transform((v) => (v === null || v === undefined || v === '' ? null : Number(v)))
  .transform((n) => (n !== null && Number.isFinite(n) ? n : null));
const timestamp = optionalPrice.transform((n) => n ?? 0);
const side = z.enum(['BUY', 'SELL']);
const level = z.object({ price, size: price });
const strings = z.array(z.union([z.string(), z.number()]).transform(String));

export type Level = z.infer<typeof level>;

export const BookSchema = z
  .object({
    asset_id: z.string(),
    market: z.string(),
    bids: z.array(level).default([]),
    asks: z.array(level).default([]),
    timestamp,
    hash: z.string().optional(),
    tick_size: optionalPrice,
    last_trade_price: optionalPrice,
  })
  .transform((m) => ({
    type: 'book' as const,
    assetId: m.asset_id,
    market: m.market,
    bids: m.bids,
    asks: m.asks,
    // The venue orders levels so the best is last; compute it rather than trust that.
    bestBid: m.bids.length ? Math.max(...m.bids.map((l) => l.price)) : null,
    bestAsk: m.asks.length ? Math.min(...m.asks.map((l) => l.price)) : null,
    timestampMs: m.timestamp,
    hash: m.hash ?? null,
    tickSize: m.tick_size,
    lastTradePrice: m.last_trade_price,
  }));

const changeEntry = z.object({
  asset_id: z.string(),
  price,
  size: price,
  side,
  hash: z.string().optional(),
  best_bid: optionalPrice,
  best_ask: optionalPrice,
});

// Since Sept 2025 a price_change lists `price_changes` (each with its asset and top of book);
// before, one asset_id carried `changes` without a top of book. Both become the same shape.
const PriceChangeSchema = z
  .object({
    market: z.string(),
    timestamp,
    price_changes: z.array(changeEntry).optional(),
    asset_id: z.string().optional(),
    changes: z.array(z.object({ price, size: price, side })).optional(),
  })
  .refine((m) => m.price_changes !== undefined || (m.asset_id !== undefined && m.changes !== undefined), {
    message: 'price_change without price_changes or asset_id+changes',
  })
  .transform((m) => ({
    type: 'price_change' as const,
    market: m.market,
    timestampMs: m.timestamp,
    changes: (m.price_changes ?? []).map((c) => ({
      assetId: c.asset_id,
      price: c.price,
      size: c.size,
      side: c.side,
      bestBid: c.best_bid,
      bestAsk: c.best_ask,
    })).concat((m.changes ?? []).map((c) => ({ assetId: m.asset_id ?? '', ...c, bestBid: null, bestAsk: null }))),
  }));

const LastTradeSchema = z
  .object({ asset_id: z.string(), market: z.string(), price, side: side.optional(), size: optionalPrice, fee_rate_bps: optionalPrice, timestamp })
  .transform((m) => ({
    type: 'last_trade_price' as const,
    assetId: m.asset_id,
    market: m.market,
    price: m.price,
    side: m.side ?? null,
    size: m.size,
    timestampMs: m.timestamp,
  }));

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

const BestBidAskSchema = z
  .object({ asset_id: z.string(), market: z.string(), best_bid: optionalPrice, best_ask: optionalPrice, timestamp })
  .transform((m) => ({
    type: 'best_bid_ask' as const,
    assetId: m.asset_id,
    market: m.market,
    bestBid: m.best_bid,
    bestAsk: m.best_ask,
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

const SCHEMAS = {
  book: BookSchema,
  price_change: PriceChangeSchema,
  last_trade_price: LastTradeSchema,
  tick_size_change: TickSizeSchema,
  best_bid_ask: BestBidAskSchema,
  new_market: NewMarketSchema,
  market_resolved: ResolvedSchema,
} as const;

export type BookMessage = z.output<typeof BookSchema>;
export type PriceChangeMessage = z.output<typeof PriceChangeSchema>;
export type PriceChangeEntry = PriceChangeMessage['changes'][number];
export type LastTradeMessage = z.output<typeof LastTradeSchema>;
export type TickSizeChangeMessage = z.output<typeof TickSizeSchema>;
export type BestBidAskMessage = z.output<typeof BestBidAskSchema>;
export type NewMarketMessage = z.output<typeof NewMarketSchema>;
export type MarketResolvedMessage = z.output<typeof ResolvedSchema>;
export type MarketMessage = { [K in keyof typeof SCHEMAS]: z.output<(typeof SCHEMAS)[K]> }[keyof typeof SCHEMAS];

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
  const items = Array.isArray(json) ? json : [json];
  const out: MarketMessage[] = [];
  for (const item of items) {
    const msg = parseMarketMessage(item, logger);
    if (msg) out.push(msg);
  }
  return out;
}

export function parseMarketMessage(item: unknown, logger: Logger): MarketMessage | null {
  const type = typeof item === 'object' && item !== null && 'event_type' in item ? item.event_type : undefined;
  if (typeof type !== 'string' || !Object.hasOwn(SCHEMAS, type)) {
    logger.debug({ eventType: type }, 'unknown market message skipped');
    return null;
  }
  const parsed = SCHEMAS[type as keyof typeof SCHEMAS].safeParse(item);
  if (!parsed.success) {
    logger.debug({ eventType: type, issue: parsed.error.issues[0]?.message }, 'malformed market message skipped');
    return null;
  }
  return parsed.data;
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

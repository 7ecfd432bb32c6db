import { bestAsk, bestBid, formatPrice, type LevelChange, type SimLevel, type Side, type TokenBook } from './books.js';
import type { SimEvent, SimMarket } from './state.js';

/** A market-channel message as sent on the wire (every object has `event_type`). */
export type WireMessage = { event_type: string } & Record<string, unknown>;

const levels = (ls: SimLevel[], ascending: boolean, leadingDot: boolean) =>
  [...ls]
    .sort((a, b) => (ascending ? a.price - b.price : b.price - a.price))
    .map((l) => ({ price: formatPrice(l.price, leadingDot), size: formatPrice(l.size) }));

const priceOrEmpty = (n: number | null) => (n === null ? '' : formatPrice(n));

/** The WS `book`: bids ascending and asks descending (best last), prices sometimes as ".48". */
export function bookMessage(b: TokenBook, leadingDot: boolean): WireMessage {
  return {
    event_type: 'book',
    asset_id: b.tokenId,
    market: b.conditionId,
    bids: levels(b.bids, true, leadingDot),
    asks: levels(b.asks, false, leadingDot),
    timestamp: String(b.timestampMs),
    hash: b.hash,
    tick_size: formatPrice(b.tickSize),
    last_trade_price: b.lastTrade ? formatPrice(b.lastTrade.price) : '',
  };
}

/** The REST `GET /book` answer. */
export function restBook(b: TokenBook, negRisk: boolean) {
  const { event_type: _type, ...rest } = bookMessage(b, false);
  return { ...rest, min_order_size: '5', neg_risk: negRisk };
}

export function priceChangeMessage(conditionId: string, entries: { book: TokenBook; changes: LevelChange[] }[], ts: number): WireMessage {
  return {
    event_type: 'price_change',
    market: conditionId,
    timestamp: String(ts),
    price_changes: entries.flatMap(({ book, changes }) =>
      changes.map((c) => ({
        asset_id: book.tokenId,
        price: formatPrice(c.price),
        size: formatPrice(c.size),
        side: c.side,
        hash: book.hash,
        best_bid: priceOrEmpty(bestBid(book)),
        best_ask: priceOrEmpty(bestAsk(book)),
      })),
    ),
  };
}

/** The form used before Sept 2025: one asset per message, no top of book, prices as recorded then (".4"). */
export function legacyPriceChangeMessage(book: TokenBook, changes: LevelChange[], ts: number): WireMessage {
  return {
    event_type: 'price_change',
    asset_id: book.tokenId,
    market: book.conditionId,
    timestamp: String(ts),
    hash: book.hash,
    changes: changes.map((c) => ({ price: formatPrice(c.price, true), side: c.side, size: formatPrice(c.size) })),
  };
}

/** The venue sends `transaction_hash` on some trades only. */
export function lastTradeMessage(book: TokenBook, price: number, side: Side, size: number, ts: number, transactionHash?: string): WireMessage {
  return {
    event_type: 'last_trade_price',
    asset_id: book.tokenId,
    market: book.conditionId,
    price: formatPrice(price),
    side,
    size: formatPrice(size),
    fee_rate_bps: '0',
    timestamp: String(ts),
    ...(transactionHash ? { transaction_hash: transactionHash } : {}),
  };
}

export function bestBidAskMessage(book: TokenBook, ts: number): WireMessage {
  const bid = bestBid(book);
  const ask = bestAsk(book);
  return {
    event_type: 'best_bid_ask',
    asset_id: book.tokenId,
    market: book.conditionId,
    best_bid: priceOrEmpty(bid),
    best_ask: priceOrEmpty(ask),
    spread: bid !== null && ask !== null ? formatPrice(ask - bid) : '',
    timestamp: String(ts),
  };
}

/** The tokens a wire message concerns; a connection receives it when it follows any of them. */
export function wireAssetIds(msg: WireMessage): string[] {
  if (typeof msg.asset_id === 'string') return [msg.asset_id];
  if (Array.isArray(msg.price_changes)) return msg.price_changes.map((c: { asset_id: string }) => c.asset_id);
  if (Array.isArray(msg.assets_ids)) return msg.assets_ids as string[];
  return [];
}

export function newMarketMessage(m: SimMarket, e: SimEvent, tagLabels: string[], ts: number): WireMessage {
  return {
    event_type: 'new_market',
    id: m.id,
    question: m.question,
    market: m.conditionId,
    slug: m.slug,
    description: m.description,
    assets_ids: [...m.tokenIds],
    clob_token_ids: [...m.tokenIds],
    outcomes: ['Yes', 'No'],
    tags: tagLabels,
    active: true,
    event_message: { id: e.id, ticker: e.slug, slug: e.slug, title: e.title, description: e.description },
    timestamp: String(ts),
  };
}

export function marketResolvedMessage(m: SimMarket, winner: 0 | 1, ts: number): WireMessage {
  return {
    event_type: 'market_resolved',
    market: m.conditionId,
    assets_ids: [...m.tokenIds],
    winning_asset_id: m.tokenIds[winner],
    winning_outcome: winner === 0 ? 'Yes' : 'No',
    timestamp: String(ts),
  };
}

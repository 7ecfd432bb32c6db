import type { MarketMessage, PriceChangeEntry, PriceChangeMessage } from '../venue/clob/messages.js';
import { PriceBook } from '../engine/displayed-price.js';

export type PriceSink = (token: string, price: number, receivedAtMs: number, sourceEvent: unknown, sourceTimestampMs: number | undefined) => void;

const top = (v: number | null) => (v === null ? undefined : v);
const str = (v: number | null | undefined) => (v === null || v === undefined ? '' : String(v));

/** The venue message in its wire shape, as the payload's `polymarketSourceEvent`. */
export function sourceEventOf(msg: MarketMessage): Record<string, unknown> | undefined {
  switch (msg.type) {
    case 'price_change':
      if (msg.legacy) {
        return {
          event_type: 'price_change',
          asset_id: msg.changes[0]?.assetId ?? '',
          market: msg.market,
          changes: msg.changes.map((c) => ({ price: str(c.price), side: c.side, size: str(c.size) })),
          timestamp: String(msg.timestampMs),
        };
      }
      return {
        event_type: 'price_change',
        market: msg.market,
        price_changes: msg.changes.map((c) => ({
          asset_id: c.assetId, price: str(c.price), size: str(c.size), side: c.side, best_bid: str(c.bestBid), best_ask: str(c.bestAsk),
        })),
        timestamp: String(msg.timestampMs),
      };
    case 'last_trade_price':
      return { event_type: 'last_trade_price', asset_id: msg.assetId, market: msg.market, price: String(msg.price), side: msg.side, timestamp: String(msg.timestampMs) };
    case 'best_bid_ask':
      return { event_type: 'best_bid_ask', asset_id: msg.assetId, market: msg.market, best_bid: str(msg.bestBid), best_ask: str(msg.bestAsk), timestamp: String(msg.timestampMs) };
    case 'book':
      return { event_type: 'book', asset_id: msg.assetId, market: msg.market, best_bid: str(msg.bestBid), best_ask: str(msg.bestAsk), timestamp: String(msg.timestampMs) };
    default:
      return undefined;
  }
}

/**
 * Turns market-stream messages into displayed prices (book, price_change in both forms,
 * best_bid_ask, last_trade_price → PriceBook) and hands each changed price to `sink`.
 */
export class StreamPrices {
  readonly book = new PriceBook();

  constructor(private readonly sink: PriceSink) {}

  handle(msg: MarketMessage, receivedAtMs: number): void {
    switch (msg.type) {
      case 'book':
        this.update(msg.assetId, msg, receivedAtMs, () => {
          if (msg.lastTradePrice !== null) this.book.applyTrade(msg.assetId, msg.lastTradePrice);
          this.book.applyBook(msg.assetId, msg.bids, msg.asks);
        });
        return;
      case 'price_change':
        this.priceChange(msg, receivedAtMs);
        return;
      case 'best_bid_ask':
        this.update(msg.assetId, msg, receivedAtMs, () => this.book.applyTop(msg.assetId, top(msg.bestBid), top(msg.bestAsk)));
        return;
      case 'last_trade_price':
        this.update(msg.assetId, msg, receivedAtMs, () => this.book.applyTrade(msg.assetId, msg.price));
        return;
      default:
        return;
    }
  }

  /**
   * Applies every level change first, then sets each token's top once: from its last entry's
   * `best_bid`/`best_ask` (the top after the whole message), or, in the legacy form that has none,
   * from the kept levels.
   */
  private priceChange(msg: PriceChangeMessage, receivedAtMs: number): void {
    const changes = msg.changes;
    for (const c of changes) this.book.setLevel(c.assetId, c.side, c.price, c.size);
    // A message covers one or two tokens: a short list beats a Set here.
    const tokens: PriceChangeEntry[] = [];
    for (let i = changes.length - 1; i >= 0; i--) {
      const c = changes[i]!;
      let seen = false;
      for (let j = 0; j < tokens.length && !seen; j++) seen = tokens[j]!.assetId === c.assetId;
      if (!seen) tokens.push(c);
    }
    for (let i = tokens.length - 1; i >= 0; i--) {
      const c = tokens[i]!;
      this.update(c.assetId, msg, receivedAtMs, () =>
        msg.legacy ? this.book.applyLevelTop(c.assetId) : this.book.applyTop(c.assetId, top(c.bestBid), top(c.bestAsk)),
      );
    }
  }

  private update(token: string, msg: MarketMessage, receivedAtMs: number, apply: () => void): void {
    const before = this.book.displayed(token);
    apply();
    const after = this.book.displayed(token);
    if (after === undefined || after === before) return;
    this.sink(token, after, receivedAtMs, sourceEventOf(msg), msg.timestampMs || undefined);
  }
}

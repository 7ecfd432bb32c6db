import type { LastTradeMessage, MarketMessage, PriceChangeMessage } from '../venue/clob/messages.js';
import { PriceBook } from '../engine/displayed-price.js';

/**
 * A changed displayed price and the message that changed it. The sink builds the message's source
 * event (`sourceEventOf`) only if a rule fires: most prices fire nothing.
 */
export type PriceSink = (token: string, price: number, receivedAtMs: number, msg: MarketMessage) => void;

/** Every trade off the feed (`last_trade_price` with a size), after the price it set was handled. */
export type TradeSink = (msg: LastTradeMessage, receivedAtMs: number) => void;

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
      return {
        event_type: 'last_trade_price', asset_id: msg.assetId, market: msg.market, price: String(msg.price), side: msg.side,
        ...(msg.size !== null ? { size: String(msg.size) } : {}),
        timestamp: String(msg.timestampMs),
        ...(msg.transactionHash !== null ? { transaction_hash: msg.transactionHash } : {}),
      };
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
 * best_bid_ask, last_trade_price → PriceBook) and hands each changed price to `sink`, and each
 * trade to `tradeSink`.
 */
export class StreamPrices {
  readonly book = new PriceBook();

  constructor(
    private readonly sink: PriceSink,
    private readonly tradeSink?: TradeSink,
  ) {}

  handle(msg: MarketMessage, receivedAtMs: number): void {
    switch (msg.type) {
      case 'book': {
        // Two changes (the trade, then the levels): only the price after both counts.
        const before = this.book.displayed(msg.assetId);
        if (msg.lastTradePrice !== null) this.book.applyTrade(msg.assetId, msg.lastTradePrice);
        this.book.applyBook(msg.assetId, msg.bids, msg.asks);
        const after = this.book.displayed(msg.assetId);
        if (after !== undefined && after !== before) this.sink(msg.assetId, after, receivedAtMs, msg);
        return;
      }
      case 'price_change':
        this.priceChange(msg, receivedAtMs);
        return;
      case 'best_bid_ask':
        this.changed(msg.assetId, this.book.applyTop(msg.assetId, top(msg.bestBid), top(msg.bestAsk)), receivedAtMs, msg);
        return;
      case 'last_trade_price':
        this.changed(msg.assetId, this.book.applyTrade(msg.assetId, msg.price), receivedAtMs, msg);
        if (this.tradeSink && msg.size !== null) this.tradeSink(msg, receivedAtMs);
        return;
      default:
        return;
    }
  }

  /**
   * Applies every level change first, then sets each token's top once, at its last entry: from that
   * entry's `best_bid`/`best_ask` (the top after the whole message), or, in the legacy form that has
   * none, from the kept levels. Tokens are taken in the order of their last entries.
   */
  private priceChange(msg: PriceChangeMessage, receivedAtMs: number): void {
    const changes = msg.changes;
    const n = changes.length;
    this.book.setLevels(changes);
    // A message covers one or two tokens: a scan of the few later entries beats a Set here.
    for (let i = 0; i < n; i++) {
      const c = changes[i]!;
      let last = true;
      for (let j = i + 1; j < n && last; j++) last = changes[j]!.assetId !== c.assetId;
      if (!last) continue;
      const changed = msg.legacy ? this.book.applyLevelTop(c.assetId) : this.book.applyTop(c.assetId, top(c.bestBid), top(c.bestAsk));
      this.changed(c.assetId, changed, receivedAtMs, msg);
    }
  }

  /** `price` is what a PriceBook update answers: the new displayed price, undefined when it did not change (or is unknown). */
  private changed(token: string, price: number | undefined, receivedAtMs: number, msg: MarketMessage): void {
    if (price !== undefined) this.sink(token, price, receivedAtMs, msg);
  }
}

import type { LastTradeMessage, MarketMessage, PriceChangeMessage } from '../venue/clob/messages.js';
import { TokenRecords, type TokenRecord } from './token-records.js';

/**
 * A changed displayed price of the token whose record is given, and the message that changed it.
 * The sink builds the message's source event (`sourceEventOf`) only if a rule fires: most prices
 * fire nothing.
 */
export type PriceSink = (record: TokenRecord, price: number, receivedAtMs: number, msg: MarketMessage) => void;

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
 * best_bid_ask, last_trade_price → the token's book) and hands each changed price to `sink`, and
 * each trade to `tradeSink`. Each token of a message is looked up once (once per run of its
 * entries in a price_change); its record then carries the price to the sink.
 *
 * Given the engine's `records`, only tokens with a record are read (the ones the stream carries
 * or rules follow: a message for a token just dropped is late and changes nothing); without,
 * every token gets one (tests and tools that read a feed alone).
 */
export class StreamPrices {
  readonly records: TokenRecords;
  private readonly record: (token: string) => TokenRecord | undefined;
  /** The record of a price_change entry's token: the stream's tag of it when that is still kept. */
  private readonly entryRecord: (tag: unknown, token: string) => TokenRecord | undefined;
  /**
   * A price_change's tokens in the order of their last entries, with those entries (reused; the
   * count is kept apart: a length write is a builtin call, ~1% of the ingest profile).
   */
  private readonly runs: (TokenRecord | undefined)[] = [];
  private readonly lastEntry: number[] = [];

  constructor(
    private readonly sink: PriceSink,
    private readonly tradeSink?: TradeSink,
    records?: TokenRecords,
  ) {
    const kept = (this.records = records ?? new TokenRecords());
    this.record = records ? (token) => kept.get(token) : (token) => kept.resolve(token);
    this.entryRecord = records ? (tag, token) => kept.fromTag(tag, token) : (_tag, token) => kept.resolve(token);
  }

  handle(msg: MarketMessage, receivedAtMs: number): void {
    switch (msg.type) {
      case 'book': {
        const record = this.record(msg.assetId);
        if (record === undefined) return;
        // Two changes (the trade, then the levels): only the price after both counts.
        const before = record.shown;
        if (msg.lastTradePrice !== null) record.applyTrade(msg.lastTradePrice);
        record.applyBook(msg.bids, msg.asks);
        const after = record.shown;
        if (after !== undefined && after !== before) this.sink(record, after, receivedAtMs, msg);
        return;
      }
      case 'price_change':
        this.priceChange(msg, receivedAtMs);
        return;
      case 'best_bid_ask': {
        const record = this.record(msg.assetId);
        if (record !== undefined) this.changed(record, record.applyTop(top(msg.bestBid), top(msg.bestAsk)), receivedAtMs, msg);
        return;
      }
      case 'last_trade_price': {
        const record = this.record(msg.assetId);
        if (record !== undefined) this.changed(record, record.applyTrade(msg.price), receivedAtMs, msg);
        if (this.tradeSink && msg.size !== null) this.tradeSink(msg, receivedAtMs);
        return;
      }
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
    const runs = this.runs;
    const lastEntry = this.lastEntry;
    let token: string | undefined;
    let record: TokenRecord | undefined;
    let run = -1;
    let n = 0;
    // A message covers one or two tokens, each in a run of entries: one record per run (the stream's
    // tag, or a lookup), and a scan of the few runs so far (not a Set) finds a token met before.
    for (let i = 0; i < changes.length; i++) {
      const c = changes[i]!;
      if (c.assetId !== token) {
        token = c.assetId;
        record = this.entryRecord(c.tag, token);
        if (record === undefined) continue;
        for (run = 0; run < n && runs[run] !== record; run++);
        if (run === n) runs[n++] = record;
      }
      if (record === undefined) continue;
      lastEntry[run] = i;
      record.keptLevels().apply(c.side, c.price, c.size);
    }
    if (n === 0) return;
    // Tokens in the order of their last entries (one or two in practice: no sort to speak of).
    if (n > 1) this.orderRuns(n);
    for (let r = 0; r < n; r++) {
      const rec = runs[r]!;
      // Not kept past the message: a record the engine drops must not stay reachable from here.
      runs[r] = undefined;
      const c = changes[lastEntry[r]!]!;
      this.changed(rec, msg.legacy ? rec.applyLevelTop() : rec.applyTop(top(c.bestBid), top(c.bestAsk)), receivedAtMs, msg);
    }
  }

  /** Sorts the runs by their last entry (insertion sort: a handful at most). */
  private orderRuns(n: number): void {
    const { runs, lastEntry } = this;
    for (let i = 1; i < n; i++) {
      const rec = runs[i]!;
      const last = lastEntry[i]!;
      let j = i - 1;
      for (; j >= 0 && lastEntry[j]! > last; j--) {
        runs[j + 1] = runs[j]!;
        lastEntry[j + 1] = lastEntry[j]!;
      }
      runs[j + 1] = rec;
      lastEntry[j + 1] = last;
    }
  }

  /** `price` is what a book update answers: the new displayed price, undefined when it did not change. */
  private changed(record: TokenRecord, price: number | undefined, receivedAtMs: number, msg: MarketMessage): void {
    if (price !== undefined) this.sink(record, price, receivedAtMs, msg);
  }
}

// The venue's display rule (FORMATS.md section 4): midpoint when the spread is at most 0.10,
// otherwise the last trade; with one side of the book empty, the last trade.
import { LevelBook, type PriceLevel } from './order-book.js';

export const MAX_MIDPOINT_SPREAD = 0.1;
const SPREAD_EPSILON = 1e-9;

/** Rounds to 1e-9 so a midpoint such as 0.3 is the same double as the threshold 30/100. */
export function roundPrice(price: number): number {
  return Math.round(price * 1e9) / 1e9;
}

export function displayedPrice(
  bestBid: number | undefined,
  bestAsk: number | undefined,
  lastTrade: number | undefined,
): number | undefined {
  if (bestBid !== undefined && bestAsk !== undefined && bestAsk - bestBid <= MAX_MIDPOINT_SPREAD + SPREAD_EPSILON) {
    return roundPrice((bestBid + bestAsk) / 2);
  }
  return lastTrade;
}

interface TokenBook {
  bestBid: number | undefined;
  bestAsk: number | undefined;
  lastTrade: number | undefined;
  shown: number | undefined;
  /** Created by the first `book` or level change: tokens fed only tops and trades never need it. */
  levels: LevelBook | undefined;
}

/**
 * Book tops, kept levels and last trades per token; every update answers the new displayed price,
 * if it changed. The top is the venue's own when a message carries it, else the kept levels' best.
 */
export class PriceBook {
  private readonly books = new Map<string, TokenBook>();

  /** `undefined` for a side means that side of the book is empty. */
  applyTop(token: string, bestBid: number | undefined, bestAsk: number | undefined): number | undefined {
    const book = this.book(token);
    book.bestBid = bestBid;
    book.bestAsk = bestAsk;
    return this.refresh(book);
  }

  /** A `book` snapshot: its levels replace the kept ones and give the top. */
  applyBook(token: string, bids: readonly PriceLevel[], asks: readonly PriceLevel[]): number | undefined {
    const book = this.book(token);
    const levels = (book.levels ??= new LevelBook());
    levels.replace(bids, asks);
    book.bestBid = levels.bids.top();
    book.bestAsk = levels.asks.top();
    return this.refresh(book);
  }

  /**
   * Changes a message's kept levels without recomputing any price: they are applied together
   * before `applyLevelTop` or `applyTop`, so a half-applied message never shows a price. Each
   * token is looked up once per run of its entries (a message lists one token's, then the other's).
   */
  setLevels(changes: ReadonlyArray<{ assetId: string; side: 'BUY' | 'SELL'; price: number; size: number }>): void {
    let token: string | undefined;
    let levels: LevelBook | undefined;
    for (let i = 0; i < changes.length; i++) {
      const c = changes[i]!;
      if (c.assetId !== token || levels === undefined) {
        token = c.assetId;
        const book = this.book(token);
        levels = book.levels ??= new LevelBook();
      }
      levels.apply(c.side, c.price, c.size);
    }
  }

  /** Takes the top from the kept levels (for messages that carry no top of book). */
  applyLevelTop(token: string): number | undefined {
    const book = this.book(token);
    book.bestBid = book.levels?.bids.top();
    book.bestAsk = book.levels?.asks.top();
    return this.refresh(book);
  }

  applyTrade(token: string, price: number): number | undefined {
    const book = this.book(token);
    book.lastTrade = price;
    return this.refresh(book);
  }

  displayed(token: string): number | undefined {
    return this.books.get(token)?.shown;
  }

  /** The kept levels of a token (for tests and diagnostics). */
  levels(token: string): LevelBook | undefined {
    return this.books.get(token)?.levels;
  }

  forget(token: string): void {
    this.books.delete(token);
  }

  private book(token: string): TokenBook {
    let book = this.books.get(token);
    if (book === undefined) {
      book = { bestBid: undefined, bestAsk: undefined, lastTrade: undefined, shown: undefined, levels: undefined };
      this.books.set(token, book);
    }
    return book;
  }

  private refresh(book: TokenBook): number | undefined {
    const next = displayedPrice(book.bestBid, book.bestAsk, book.lastTrade);
    if (next === book.shown) return undefined;
    book.shown = next;
    return next;
  }
}

// The venue's display rule (FORMATS.md section 4): midpoint when the spread is at most 0.10,
// otherwise the last trade; with one side of the book empty, the last trade.

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
}

/** Book tops and last trades per token; every update answers the new displayed price, if it changed. */
export class PriceBook {
  private readonly books = new Map<string, TokenBook>();

  /** `undefined` for a side means that side of the book is empty. */
  applyTop(token: string, bestBid: number | undefined, bestAsk: number | undefined): number | undefined {
    const book = this.book(token);
    book.bestBid = bestBid;
    book.bestAsk = bestAsk;
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

  forget(token: string): void {
    this.books.delete(token);
  }

  private book(token: string): TokenBook {
    let book = this.books.get(token);
    if (book === undefined) {
      book = { bestBid: undefined, bestAsk: undefined, lastTrade: undefined, shown: undefined };
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

// One token's kept price levels, so that a level change without the venue's top of book (the
// legacy `changes` form of price_change) still moves the displayed price.

/** Levels are keyed by the price in millionths: ".40", "0.4" and "0.40" are one level. */
const KEY_SCALE = 1e6;

export const levelKey = (price: number): number => Math.round(price * KEY_SCALE);

export interface PriceLevel {
  price: number;
  size: number;
}

/**
 * One side of a book. The best level is tracked as levels arrive; only removing the best level
 * costs a scan, and that scan waits until the top is next read. A removed level stays as a size of
 * 0 until the next snapshot: a level is removed and placed again all the time, and a `Map` entry
 * deleted and added back costs more than one overwritten (the levels are on a tick grid, so the
 * entries stay few).
 */
export class BookSide {
  private readonly sizes = new Map<number, number>();
  private best: number | undefined;
  private bestStale = false;

  /** `bids` want the highest price, `asks` the lowest. */
  constructor(private readonly highestIsBest: boolean) {}

  /** The number of levels (for tests and diagnostics: it counts). */
  get size(): number {
    let n = 0;
    for (const s of this.sizes.values()) if (s > 0) n++;
    return n;
  }

  /** Sets a level's size; a size of 0 (or less) removes the level. */
  set(price: number, size: number): void {
    const key = levelKey(price);
    if (size > 0) {
      this.sizes.set(key, size);
      if (!this.bestStale && (this.best === undefined || this.better(key, this.best))) this.best = key;
    } else {
      this.sizes.set(key, 0);
      if (key === this.best) this.bestStale = true;
    }
  }

  /** Replaces every level (a `book` snapshot). */
  replace(levels: readonly PriceLevel[]): void {
    this.sizes.clear();
    this.best = undefined;
    this.bestStale = false;
    for (const l of levels) this.set(l.price, l.size);
  }

  /** The best price, `undefined` when the side is empty. */
  top(): number | undefined {
    if (this.bestStale) {
      let best: number | undefined;
      for (const [key, size] of this.sizes) if (size > 0 && (best === undefined || this.better(key, best))) best = key;
      this.best = best;
      this.bestStale = false;
    }
    return this.best === undefined ? undefined : this.best / KEY_SCALE;
  }

  /** The size at a price, 0 when there is no such level. */
  sizeAt(price: number): number {
    return this.sizes.get(levelKey(price)) ?? 0;
  }

  private better(a: number, b: number): boolean {
    return this.highestIsBest ? a > b : a < b;
  }
}

/** A token's bids and asks. */
export class LevelBook {
  readonly bids = new BookSide(true);
  readonly asks = new BookSide(false);

  /** A level change as the venue sends it: `BUY` is a bid level, `SELL` an ask level. */
  apply(side: 'BUY' | 'SELL', price: number, size: number): void {
    (side === 'BUY' ? this.bids : this.asks).set(price, size);
  }

  replace(bids: readonly PriceLevel[], asks: readonly PriceLevel[]): void {
    this.bids.replace(bids);
    this.asks.replace(asks);
  }
}

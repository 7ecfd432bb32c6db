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

/**
 * One token's book tops, kept levels and last trade; every update answers the new displayed price,
 * if it changed. The top is the venue's own when a message carries it, else the kept levels' best.
 * The runner's per-token record extends it (runner/token-records.ts): the feed resolves a token
 * once per message and reaches its book and its engine state through the same object.
 */
export class TokenBook {
  bestBid: number | undefined = undefined;
  bestAsk: number | undefined = undefined;
  lastTrade: number | undefined = undefined;
  /** The displayed price, undefined until one is known. */
  shown: number | undefined = undefined;
  /** Created by the first `book` or level change: tokens fed only tops and trades never need it. */
  levels: LevelBook | undefined = undefined;

  /** `undefined` for a side means that side of the book is empty. */
  applyTop(bestBid: number | undefined, bestAsk: number | undefined): number | undefined {
    this.bestBid = bestBid;
    this.bestAsk = bestAsk;
    return this.refresh();
  }

  /** A `book` snapshot: its levels replace the kept ones and give the top. */
  applyBook(bids: readonly PriceLevel[], asks: readonly PriceLevel[]): number | undefined {
    const levels = (this.levels ??= new LevelBook());
    levels.replace(bids, asks);
    this.bestBid = levels.bids.top();
    this.bestAsk = levels.asks.top();
    return this.refresh();
  }

  /**
   * The kept levels, for a message's level changes, applied before `applyLevelTop` or `applyTop`
   * so a half-applied message never shows a price.
   */
  keptLevels(): LevelBook {
    return (this.levels ??= new LevelBook());
  }

  /** Takes the top from the kept levels (for messages that carry no top of book). */
  applyLevelTop(): number | undefined {
    this.bestBid = this.levels?.bids.top();
    this.bestAsk = this.levels?.asks.top();
    return this.refresh();
  }

  applyTrade(price: number): number | undefined {
    this.lastTrade = price;
    return this.refresh();
  }

  /** Back to nothing known (the feed stopped or restarts the token: its next snapshot sets it again). */
  clearBook(): void {
    this.bestBid = undefined;
    this.bestAsk = undefined;
    this.lastTrade = undefined;
    this.shown = undefined;
    this.levels = undefined;
  }

  private refresh(): number | undefined {
    const next = displayedPrice(this.bestBid, this.bestAsk, this.lastTrade);
    if (next === this.shown) return undefined;
    this.shown = next;
    return next;
  }
}

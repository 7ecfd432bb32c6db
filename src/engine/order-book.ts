// One token's kept price levels, so that a level change without the venue's top of book (the
// legacy `changes` form of price_change) still moves the displayed price.

/** Levels are keyed by the price in millionths: ".40", "0.4" and "0.40" are one level. */
const KEY_SCALE = 1e6;

export const levelKey = (price: number): number => Math.round(price * KEY_SCALE);

export interface PriceLevel {
  price: number;
  size: number;
}

const START_SLOTS = 16;

/** Spreads the integer keys over the table (Fibonacci hashing). */
function hashKey(key: number): number {
  const h = Math.imul(key | 0, 0x9e3779b1);
  return h ^ (h >>> 15);
}

/**
 * One side of a book. The best level is tracked as levels arrive; only removing the best level
 * costs a scan, and that scan waits until the top is next read.
 *
 * The levels are an open-addressing table in one `Float64Array` of (price key, size) pairs, not a
 * `Map`: with a `Map` every change allocated (the size is a double, boxed in its entry) and the
 * ingest profile had this side's `set` at 7-9% of the process. Key and size side by side (not two
 * arrays) make a change touch one array object and one cache line of it: with 2,000 tokens hit at
 * random the path is bound by memory reads, not instructions. A removed level stays in the table
 * with a size of 0 until the next snapshot or the next growth (levels are removed and placed again
 * all the time, and nothing ever deleted means probing needs no tombstones).
 */
export class BookSide {
  /** Slot i is [2i] = key, [2i + 1] = size; a NaN key marks an empty slot (a key is a rounded finite price, never NaN). */
  private table = emptyTable(START_SLOTS);
  /** Slots holding a key, removed levels included. */
  private used = 0;
  private best: number | undefined;
  private bestStale = false;

  /** `bids` want the highest price, `asks` the lowest. */
  constructor(private readonly highestIsBest: boolean) {}

  /** The number of levels (for tests and diagnostics: it counts). */
  get size(): number {
    let n = 0;
    for (let i = 1; i < this.table.length; i += 2) if (this.table[i]! > 0) n++;
    return n;
  }

  /** Sets a level's size; a size of 0 (or less) removes the level. */
  set(price: number, size: number): void {
    const key = levelKey(price);
    if (size > 0) {
      // The slot first: taking it may replace the table.
      const at = this.slotFor(key);
      this.table[at + 1] = size;
      if (!this.bestStale && (this.best === undefined || this.better(key, this.best))) this.best = key;
      return;
    }
    const at = this.find(key);
    if (at === -1 || !(this.table[at + 1]! > 0)) return;
    this.table[at + 1] = 0;
    if (key === this.best) this.bestStale = true;
  }

  /** Replaces every level (a `book` snapshot). */
  replace(levels: readonly PriceLevel[]): void {
    const table = this.table;
    for (let i = 0; i < table.length; i += 2) {
      table[i] = Number.NaN;
      table[i + 1] = 0;
    }
    this.used = 0;
    this.best = undefined;
    this.bestStale = false;
    for (const l of levels) this.set(l.price, l.size);
  }

  /** The best price, `undefined` when the side is empty. */
  top(): number | undefined {
    if (this.bestStale) {
      const table = this.table;
      let best: number | undefined;
      for (let i = 0; i < table.length; i += 2) {
        if (!(table[i + 1]! > 0)) continue;
        const key = table[i]!;
        if (best === undefined || this.better(key, best)) best = key;
      }
      this.best = best;
      this.bestStale = false;
    }
    return this.best === undefined ? undefined : this.best / KEY_SCALE;
  }

  /** The size at a price, 0 when there is no such level. */
  sizeAt(price: number): number {
    const at = this.find(levelKey(price));
    return at === -1 ? 0 : this.table[at + 1]!;
  }

  private better(a: number, b: number): boolean {
    return this.highestIsBest ? a > b : a < b;
  }

  /** The index of the key's pair in the table, -1 when it has none. */
  private find(key: number): number {
    const table = this.table;
    const mask = (table.length >> 1) - 1;
    for (let i = hashKey(key) & mask; ; i = (i + 1) & mask) {
      const k = table[i << 1]!;
      if (k === key) return i << 1;
      if (k !== k) return -1;
    }
  }

  /** The index of the key's pair, taken (size 0) if it had none; the table stays at most half full. */
  private slotFor(key: number): number {
    const table = this.table;
    const mask = (table.length >> 1) - 1;
    for (let i = hashKey(key) & mask; ; i = (i + 1) & mask) {
      const at = i << 1;
      const k = table[at]!;
      if (k === key) return at;
      if (k !== k) {
        if ((this.used + 1) * 2 > mask + 1) {
          this.rebuild();
          return this.slotFor(key);
        }
        table[at] = key;
        table[at + 1] = 0;
        this.used++;
        return at;
      }
    }
  }

  /** Drops the removed levels, and doubles the table if the live ones still fill a quarter of it. */
  private rebuild(): void {
    const old = this.table;
    let live = 0;
    for (let i = 1; i < old.length; i += 2) if (old[i]! > 0) live++;
    let slots = old.length >> 1;
    while ((live + 1) * 4 > slots) slots *= 2;
    this.table = emptyTable(slots);
    this.used = 0;
    for (let i = 0; i < old.length; i += 2) {
      if (!(old[i + 1]! > 0)) continue;
      const at = this.slotFor(old[i]!);
      this.table[at + 1] = old[i + 1]!;
    }
  }
}

/** A table of `slots` empty (key NaN, size 0) pairs. */
function emptyTable(slots: number): Float64Array {
  const table = new Float64Array(slots * 2);
  for (let i = 0; i < table.length; i += 2) table[i] = Number.NaN;
  return table;
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

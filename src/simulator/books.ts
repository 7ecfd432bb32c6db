export interface SimLevel {
  price: number;
  size: number;
}

export type Side = 'BUY' | 'SELL';

export interface TokenBook {
  tokenId: string;
  marketId: string;
  conditionId: string;
  bids: SimLevel[];
  asks: SimLevel[];
  lastTrade: { price: number; side: Side; size: number } | null;
  tickSize: number;
  timestampMs: number;
  hash: string;
  history: { t: number; p: number }[];
}

export interface LevelChange {
  price: number;
  size: number;
  side: Side;
}

export const round4 = (n: number) => Math.round(n * 1e4) / 1e4;

export const bestBid = (b: TokenBook) => (b.bids.length ? Math.max(...b.bids.map((l) => l.price)) : null);
export const bestAsk = (b: TokenBook) => (b.asks.length ? Math.min(...b.asks.map((l) => l.price)) : null);

/** The venue's display rule: midpoint when the spread is at most 0.10, else the last trade. */
export function displayedPrice(b: TokenBook): number | null {
  const bid = bestBid(b);
  const ask = bestAsk(b);
  if (bid !== null && ask !== null && ask - bid <= 0.1 + 1e-9) return round4((bid + ask) / 2);
  return b.lastTrade?.price ?? null;
}

/** Five levels on each side, `half` away from `price`; a side that would leave (0, 1) stays empty. */
export function ladderAround(price: number, half: number, tick: number, size: (i: number) => number) {
  const bids: SimLevel[] = [];
  const asks: SimLevel[] = [];
  for (let i = 0; i < 5; i++) {
    const bid = round4(price - half - i * tick);
    const ask = round4(price + half + i * tick);
    if (bid > 0) bids.push({ price: bid, size: size(i) });
    if (ask < 1) asks.push({ price: ask, size: size(i + 5) });
  }
  return { bids, asks };
}

/** The second outcome's book is the first one's mirror: its bids are 1 - the first's asks. */
export function mirror(levels: { bids: SimLevel[]; asks: SimLevel[] }) {
  const flip = (l: SimLevel) => ({ price: round4(1 - l.price), size: l.size });
  return { bids: levels.asks.map(flip), asks: levels.bids.map(flip) };
}

/** Level updates that turn `before` into `after` (size 0 removes a level). */
export function diffLevels(before: SimLevel[], after: SimLevel[], side: Side): LevelChange[] {
  const next = new Map(after.map((l) => [l.price, l.size]));
  const prev = new Map(before.map((l) => [l.price, l.size]));
  const changes: LevelChange[] = [];
  for (const [price] of prev) if (!next.has(price)) changes.push({ price, size: 0, side });
  for (const [price, size] of next) if (prev.get(price) !== size) changes.push({ price, size, side });
  return changes;
}

export function formatPrice(n: number, leadingDot = false): string {
  const s = String(round4(n));
  return leadingDot && s.startsWith('0.') ? s.slice(1) : s;
}

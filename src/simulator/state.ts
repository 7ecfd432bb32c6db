import { diffLevels, displayedPrice, ladderAround, mirror, round4, type Side, type TokenBook } from './books.js';
import type { Rng } from './prng.js';
import { TAGS } from './templates.js';
import { lastTradeMessage, legacyPriceChangeMessage, priceChangeMessage, type WireMessage } from './wire.js';

export interface SimTag {
  id: string;
  label: string;
  slug: string;
}

/** The venue's `umaResolutionStatus` values the simulator plays (empty: no proposal yet). */
export const SIM_RESOLUTION_STATUSES = ['', 'proposed', 'disputed', 'resolved'] as const;
export type SimResolutionStatus = (typeof SIM_RESOLUTION_STATUSES)[number];

export interface SimMarket {
  id: string;
  eventId: string;
  question: string;
  slug: string;
  groupItemTitle: string;
  description: string;
  conditionId: string;
  questionId: string;
  tokenIds: [string, string];
  closed: boolean;
  createdAtMs: number;
  endDateMs: number;
  closedAtMs: number | null;
  volume: number;
  volume24hr: number;
  liquidity: number;
  tickSize: number;
  negRisk: boolean;
  openingPrice: number;
  resolutionStatus: SimResolutionStatus;
  /** The proposed outcome (0 Yes, 1 No) while proposed or disputed, the winner once resolved. */
  resolutionOutcome: 0 | 1 | null;
}

export interface SimEvent {
  id: string;
  slug: string;
  title: string;
  description: string;
  closed: boolean;
  createdAtMs: number;
  endDateMs: number;
  closedAtMs: number | null;
  negRisk: boolean;
  tagIds: string[];
  marketIds: string[];
}

export interface QuoteOptions {
  trade?: { side: Side; size: number; price?: number } | undefined;
  legacy?: boolean;
}

/** The simulator's catalog and order books; every change returns the wire messages it causes. */
export class SimState {
  readonly tags = new Map<string, SimTag>(TAGS.map((t) => [t.id, { ...t }]));
  readonly events = new Map<string, SimEvent>();
  readonly markets = new Map<string, SimMarket>();
  readonly books = new Map<string, TokenBook>();
  readonly stats = { booksRequests: 0, booksTokens: new Set<string>() };
  nextEventId = 16000;
  nextMarketId = 500000;

  constructor(readonly rng: Rng) {}

  tagBySlug(slug: string): SimTag | undefined {
    return [...this.tags.values()].find((t) => t.slug === slug);
  }

  openMarkets(): SimMarket[] {
    return [...this.markets.values()].filter((m) => !m.closed);
  }

  bookPair(m: SimMarket): [TokenBook, TokenBook] {
    return [this.books.get(m.tokenIds[0]) as TokenBook, this.books.get(m.tokenIds[1]) as TokenBook];
  }

  marketsOf(e: SimEvent): SimMarket[] {
    return e.marketIds.map((id) => this.markets.get(id) as SimMarket);
  }

  /** An event's volume and liquidity: the sums over its markets. */
  eventTotals(e: SimEvent): { volume: number; volume24hr: number; liquidity: number } {
    const totals = { volume: 0, volume24hr: 0, liquidity: 0 };
    for (const m of this.marketsOf(e)) {
      totals.volume += m.volume;
      totals.volume24hr += m.volume24hr;
      totals.liquidity += m.liquidity;
    }
    return { volume: round4(totals.volume), volume24hr: round4(totals.volume24hr), liquidity: round4(totals.liquidity) };
  }

  yesPrice(m: SimMarket): number {
    return displayedPrice(this.bookPair(m)[0]) ?? m.openingPrice;
  }

  newBook(m: SimMarket, tokenId: string): TokenBook {
    const book: TokenBook = {
      tokenId,
      marketId: m.id,
      conditionId: m.conditionId,
      bids: [],
      asks: [],
      lastTrade: null,
      tickSize: m.tickSize,
      timestampMs: m.createdAtMs,
      hash: this.rng.hex(40),
      history: [],
    };
    this.books.set(tokenId, book);
    return book;
  }

  /** Rebuilds the market's two books so the first outcome displays `price`; returns the messages. */
  quote(m: SimMarket, price: number, opts: QuoteOptions = {}, now = Date.now()): WireMessage[] {
    const [yes, no] = this.bookPair(m);
    const size = () => round4(this.rng.int(500, 500_000) / 100);
    const yesLevels = ladderAround(price, m.tickSize, m.tickSize, size);
    const noLevels = mirror(yesLevels);
    const entries = [
      { book: yes, next: yesLevels },
      { book: no, next: noLevels },
    ].map(({ book, next }) => {
      const changes = [...diffLevels(book.bids, next.bids, 'BUY'), ...diffLevels(book.asks, next.asks, 'SELL')];
      book.bids = next.bids;
      book.asks = next.asks;
      book.timestampMs = now;
      book.hash = this.rng.hex(40);
      return { book, changes };
    });
    const messages: WireMessage[] = opts.legacy
      ? entries.map((e) => legacyPriceChangeMessage(e.book, e.changes, now))
      : [priceChangeMessage(m.conditionId, entries, now)];
    if (opts.trade) messages.push(...this.recordTrade(m, { ...opts.trade, price: opts.trade.price ?? price }, now));
    m.liquidity = round4(Math.max(100, m.liquidity * (0.98 + this.rng.next() * 0.05)));
    this.noteHistory(m, now);
    return messages;
  }

  /**
   * A trade on the market's first outcome, the books left as they are: its `last_trade_price`,
   * and the mirror trade the venue reports on the second outcome (1 − price, the other side).
   * The displayed price moves only where the venue's rule shows the last trade (a wide spread or
   * an empty side). Counts in the market's volume.
   */
  trade(m: SimMarket, trade: { price: number; size: number; side: Side; transactionHash?: string }, now = Date.now()): WireMessage[] {
    const messages = this.recordTrade(m, trade, now);
    this.noteHistory(m, now);
    return messages;
  }

  private recordTrade(m: SimMarket, trade: { price: number; size: number; side: Side; transactionHash?: string }, now: number): WireMessage[] {
    const [yes, no] = this.bookPair(m);
    const { price, side, size } = trade;
    const mirrorSide: Side = side === 'BUY' ? 'SELL' : 'BUY';
    yes.lastTrade = { price, side, size };
    no.lastTrade = { price: round4(1 - price), side: mirrorSide, size };
    m.volume = round4(m.volume + size * price);
    m.volume24hr = round4(m.volume24hr + size * price);
    return [
      lastTradeMessage(yes, price, side, size, now, trade.transactionHash),
      lastTradeMessage(no, round4(1 - price), mirrorSide, size, now, trade.transactionHash),
    ];
  }

  private noteHistory(m: SimMarket, now: number): void {
    for (const book of this.bookPair(m)) {
      const p = displayedPrice(book);
      if (p !== null) book.history.push({ t: Math.floor(now / 1000), p });
      if (book.history.length > 5000) book.history.splice(0, book.history.length - 5000);
    }
  }

  /**
   * Closes a market the way the venue does when it resolves: `resolved`, with the proposed outcome
   * as winner, or the side the price favours when none was proposed. Answers the winner.
   */
  closeMarket(m: SimMarket, now = Date.now()): 0 | 1 {
    m.closed = true;
    m.closedAtMs ??= now;
    m.resolutionStatus = 'resolved';
    m.resolutionOutcome ??= this.yesPrice(m) >= 0.5 ? 0 : 1;
    return m.resolutionOutcome;
  }

  closeEvent(e: SimEvent, now = Date.now()): void {
    e.closed = true;
    e.closedAtMs ??= now;
    for (const m of this.marketsOf(e)) this.closeMarket(m, now);
  }
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BookSide, LevelBook } from '../../src/engine/order-book.js';

describe('kept book levels', () => {
  it('treats ".40", "0.4" and "0.40" as one level', () => {
    const bids = new BookSide(true);
    bids.set(Number('.40'), 10);
    bids.set(Number('0.4'), 25);
    expect(bids.size).toBe(1);
    expect(bids.sizeAt(Number('0.40'))).toBe(25);
    bids.set(Number('0.40'), 0);
    expect(bids.size).toBe(0);
    expect(bids.top()).toBeUndefined();
  });

  it('keeps the highest bid and the lowest ask, whatever order the levels come in', () => {
    const book = new LevelBook();
    book.replace(
      [{ price: 0.46, size: 1 }, { price: 0.48, size: 1 }, { price: 0.47, size: 1 }],
      [{ price: 0.52, size: 1 }, { price: 0.5, size: 1 }, { price: 0.51, size: 1 }],
    );
    expect([book.bids.top(), book.asks.top()]).toEqual([0.48, 0.5]);
  });

  it('finds the next best level when the best one is removed (size 0)', () => {
    const book = new LevelBook();
    book.replace([{ price: 0.48, size: 1 }, { price: 0.47, size: 1 }], [{ price: 0.5, size: 1 }, { price: 0.53, size: 1 }]);
    book.apply('BUY', Number('.48'), 0);
    book.apply('SELL', Number('0.50'), 0);
    expect([book.bids.top(), book.asks.top()]).toEqual([0.47, 0.53]);
    book.apply('BUY', 0.49, 3); // a better bid after the removal, before the top was read
    expect(book.bids.top()).toBe(0.49);
  });

  it('a snapshot replaces every level', () => {
    const book = new LevelBook();
    book.replace([{ price: 0.48, size: 1 }], [{ price: 0.5, size: 1 }]);
    book.replace([{ price: 0.3, size: 1 }], []);
    expect([book.bids.top(), book.asks.top(), book.bids.sizeAt(0.48)]).toEqual([0.3, undefined, 0]);
  });

  it('ignores a snapshot level of size 0', () => {
    const book = new LevelBook();
    book.replace([{ price: 0.48, size: 0 }, { price: 0.4, size: 2 }], []);
    expect(book.bids.top()).toBe(0.4);
  });
});

// Prices as the venue writes them: "0.4", ".4", "0.40", ".40", "0.400" are one level.
const priceText = fc
  .tuple(fc.integer({ min: 1, max: 999 }), fc.constantFrom('0.', '.'), fc.constantFrom('', '0', '00'))
  .map(([milli, lead, pad]) => `${lead}${String(milli).padStart(3, '0').replace(/0+$/, '') || '0'}${pad}`);
const level = fc.record({ price: priceText, size: fc.constantFrom('0', '1', '12.5', '300') });
// `read`: whether the top is read after this change (unread runs exercise the deferred rescans).
const change = fc.record({
  side: fc.constantFrom<'BUY' | 'SELL'>('BUY', 'SELL'),
  price: priceText,
  size: fc.constantFrom('0', '0', '5', '40.25'),
  read: fc.boolean(),
});

/** The reference: the whole book rebuilt from scratch, levels keyed by their numeric value. */
function rebuildTop(bids: Map<number, number>, asks: Map<number, number>) {
  const bidPrices = [...bids].filter(([, s]) => s > 0).map(([p]) => p);
  const askPrices = [...asks].filter(([, s]) => s > 0).map(([p]) => p);
  return [bidPrices.length ? Math.max(...bidPrices) : undefined, askPrices.length ? Math.min(...askPrices) : undefined];
}

function sameTopsAsRebuild(bids: Array<{ price: string; size: string }>, asks: Array<{ price: string; size: string }>, changes: Array<{ side: 'BUY' | 'SELL'; price: string; size: string; read: boolean }>) {
  const book = new LevelBook();
  const num = (l: { price: string; size: string }) => ({ price: Number(l.price), size: Number(l.size) });
  book.replace(bids.map(num), asks.map(num));
  const ref = { BUY: new Map<number, number>(), SELL: new Map<number, number>() };
  for (const l of bids) ref.BUY.set(Number(l.price), Number(l.size));
  for (const l of asks) ref.SELL.set(Number(l.price), Number(l.size));
  expect([book.bids.top(), book.asks.top()]).toEqual(rebuildTop(ref.BUY, ref.SELL));
  for (const c of changes) {
    book.apply(c.side, Number(c.price), Number(c.size));
    ref[c.side].set(Number(c.price), Number(c.size));
    if (c.read) expect([book.bids.top(), book.asks.top()]).toEqual(rebuildTop(ref.BUY, ref.SELL));
  }
  expect([book.bids.top(), book.asks.top()]).toEqual(rebuildTop(ref.BUY, ref.SELL));
  const live = (m: Map<number, number>) => [...m.values()].filter((v) => v > 0).length;
  expect([book.bids.size, book.asks.size]).toEqual([live(ref.BUY), live(ref.SELL)]);
  for (const side of ['BUY', 'SELL'] as const) {
    for (const [price, size] of ref[side]) expect((side === 'BUY' ? book.bids : book.asks).sizeAt(price)).toBe(size > 0 ? size : 0);
  }
}

describe('kept book levels against a plain rebuild (property)', () => {
  it('gives the same levels and tops for books of hundreds of levels changed thousands of times (the table grows and compacts)', () => {
    fc.assert(
      fc.property(fc.array(level, { maxLength: 300 }), fc.array(level, { maxLength: 300 }), fc.array(change, { maxLength: 2000 }), sameTopsAsRebuild),
      { numRuns: 60 },
    );
  });

  it('gives the same best bid and best ask after any sequence of level changes', () => {
    fc.assert(
      fc.property(fc.array(level, { maxLength: 12 }), fc.array(level, { maxLength: 12 }), fc.array(change, { maxLength: 60 }), (bids, asks, changes) => {
        const book = new LevelBook();
        const num = (l: { price: string; size: string }) => ({ price: Number(l.price), size: Number(l.size) });
        book.replace(bids.map(num), asks.map(num));
        const ref = { BUY: new Map<number, number>(), SELL: new Map<number, number>() };
        for (const l of bids) ref.BUY.set(Number(l.price), Number(l.size));
        for (const l of asks) ref.SELL.set(Number(l.price), Number(l.size));
        expect([book.bids.top(), book.asks.top()]).toEqual(rebuildTop(ref.BUY, ref.SELL));
        for (const c of changes) {
          book.apply(c.side, Number(c.price), Number(c.size));
          ref[c.side].set(Number(c.price), Number(c.size));
          if (c.read) expect([book.bids.top(), book.asks.top()]).toEqual(rebuildTop(ref.BUY, ref.SELL));
        }
        expect([book.bids.top(), book.asks.top()]).toEqual(rebuildTop(ref.BUY, ref.SELL));
      }),
      { numRuns: 300 },
    );
  });
});

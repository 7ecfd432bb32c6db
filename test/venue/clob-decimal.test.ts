import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { plainDecimal } from '../../src/venue/clob/decimal.js';
import { parseMarketFrame } from '../../src/venue/clob/messages.js';

const silent = createLogger('silent');

// Strings near the fast path's edges: digits, dots, signs, exponents, spaces, long runs.
const numberish = fc.string({ unit: fc.constantFrom(...'0123456789.....-+e x'), maxLength: 20 });
// The venue's own forms: "0.45", ".45", "3735.43", "1763800019931", trailing zeros, up to 17 digits.
const decimalText = fc
  .tuple(fc.stringMatching(/^[0-9]{0,12}$/), fc.option(fc.stringMatching(/^[0-9]{0,8}$/)))
  .map(([whole, fraction]) => (fraction === null ? whole : `${whole}.${fraction}`));

/** `num`/`optNum` before the fast path: `Number` for every string, blank strings malformed / null. */
const reference = {
  num: (s: string) => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : undefined),
  optNum: (s: string) => (s === '' || !Number.isFinite(Number(s)) ? null : Number(s)),
};

describe('plainDecimal', () => {
  it('answers Number(s) whenever it answers, and declines only what it does not read', () => {
    fc.assert(
      fc.property(fc.oneof(numberish, decimalText, fc.string({ maxLength: 20 })), (s) => {
        const fast = plainDecimal(s);
        if (fast !== -1) expect(Object.is(fast, Number(s))).toBe(true);
        else expect(/^(?=.*[0-9])[0-9]*\.?[0-9]*$/.test(s) && s.length <= 15).toBe(false);
      }),
      { numRuns: 20_000 },
    );
  });

  it('reads the venue forms and declines the rest', () => {
    expect(plainDecimal('0.45')).toBe(0.45);
    expect(plainDecimal('.45')).toBe(0.45);
    expect(plainDecimal('5.')).toBe(5);
    expect(plainDecimal('1763800019931')).toBe(1763800019931);
    expect(plainDecimal('0.1')).toBe(0.1);
    for (const s of ['', '.', '..5', '1.2.3', '-1', '+1', '1e5', ' 1', '0x10', 'Infinity', '1234567890123456']) expect(plainDecimal(s)).toBe(-1);
  });
});

describe('parseMarketFrame numbers', () => {
  it('gives a price_change the same numbers as JSON.parse + Number', () => {
    const field = fc.oneof(decimalText, numberish);
    fc.assert(
      fc.property(fc.array(fc.tuple(field, field, field, field), { minLength: 1, maxLength: 4 }), field, (entries, timestamp) => {
        const frame = JSON.stringify({
          event_type: 'price_change',
          market: '0xabc',
          timestamp,
          price_changes: entries.map(([price, size, bid, ask], i) => ({ asset_id: `t${i}`, price, size, side: 'BUY', hash: 'h', best_bid: bid, best_ask: ask })),
        });
        const malformed = entries.some(([price, size]) => reference.num(price) === undefined || reference.num(size) === undefined);
        const msgs = parseMarketFrame(frame, silent);
        if (malformed) {
          expect(msgs).toEqual([]);
          return;
        }
        expect(msgs).toEqual([
          {
            type: 'price_change',
            market: '0xabc',
            timestampMs: reference.optNum(timestamp) ?? 0,
            legacy: false,
            changes: entries.map(([price, size, bid, ask], i) => ({
              assetId: `t${i}`, price: reference.num(price), size: reference.num(size), side: 'BUY', bestBid: reference.optNum(bid), bestAsk: reference.optNum(ask),
            })),
          },
        ]);
      }),
      { numRuns: 5_000 },
    );
  });
});

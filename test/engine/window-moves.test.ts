import { describe, expect, it } from 'vitest';
import { thresholdFraction, type AlertEvaluator, type Firing } from '../../src/engine/rules.js';
import { implementations, rule } from './support.js';

// Window moves on both evaluators, case by case (the property test compares them at random).

const MIN = 60_000;
const T0 = 1_000_000_000;

function feed(e: AlertEvaluator, prices: Array<[minute: number, price: number]>, token = 'yes-1'): Firing[] {
  return prices.flatMap(([minute, price]) => [...e.tick(token, price, T0 + minute * MIN)]);
}

describe.each(implementations)('window moves (%s)', (_name, make) => {
  it('a rise spread over two hours does not fire a 1h rule; the same rise within 40 minutes does', () => {
    const e = make();
    e.add(rule({ ruleId: 1, type: 'Moves Up By', threshold: thresholdFraction(10), window: '1h' }), T0);
    expect(feed(e, [[0, 0.4], [40, 0.43], [80, 0.47], [120, 0.5]])).toEqual([]);
    // Hours later, 50 % → 60 % within 40 minutes (the later of two equal lowest prices counts).
    const fired = feed(e, [[300, 0.5], [320, 0.55], [340, 0.6]]);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({
      ruleId: 1, ruleType: 'Moves Up By', previousPrice: 0.5, price: 0.6, atMs: T0 + 340 * MIN,
      details: { window: '1h', windowStartValue: 0.5, windowStartTimeMs: T0 + 320 * MIN, movePoints: 10 },
    });
  });

  it('a price held before a jump is the window start: held 2h at 40 %, then 50 % fires', () => {
    const e = make();
    e.add(rule({ ruleId: 1, type: 'Moves Up By', threshold: thresholdFraction(10), window: '1h' }), T0);
    const fired = feed(e, [[0, 0.4], [120, 0.5]]);
    expect(fired.map((f) => f.details)).toEqual([{ window: '1h', windowStartValue: 0.4, windowStartTimeMs: T0 + 120 * MIN, movePoints: 10 }]);
  });

  it('a long climb (more prices than the deques first hold) measures from the lowest in the window', () => {
    const e = make();
    e.add(rule({ ruleId: 1, type: 'Moves Up By', threshold: thresholdFraction(30), window: '1h', oneTime: true }), T0);
    e.add(rule({ ruleId: 2, type: 'Moves By', threshold: thresholdFraction(2.5), window: '5m', oneTime: true }), T0);
    e.add(rule({ ruleId: 4, type: 'Moves Up By', threshold: thresholdFraction(5), window: '5m', token: 'yes-2' }), T0);
    e.add(rule({ ruleId: 3, type: 'Moves Down By', threshold: thresholdFraction(1), window: '24h', oneTime: true }), T0);
    // +0.5 point a minute: 100 prices, each above the last.
    const climb = Array.from({ length: 100 }, (_, i): [number, number] => [i, thresholdFraction(20 + i / 2)]);
    const fired = feed(e, climb);
    expect(fired.map((f) => [f.ruleId, f.details!.movePoints, f.details!.windowStartValue])).toEqual([
      [2, 2.5, 0.2], // 5m: 20 % → 22.5 % at minute 5
      [1, 30, 0.2], // 1h: 20 % → 50 % at minute 60
    ]);
    expect(fired.map((f) => f.atMs)).toEqual([T0 + 5 * MIN, T0 + 60 * MIN]);
    // Only a 5m window on this token: the deques drop what it no longer reads as they fill.
    expect(feed(e, climb, 'yes-2')).toEqual([]);
    expect(feed(e, [[100, 0.75]], 'yes-2').map((f) => f.details)).toEqual([{ window: '5m', windowStartValue: 0.675, windowStartTimeMs: T0 + 96 * MIN, movePoints: 7.5 }]);
    // Then a fall of 1 point from the day's highest (69.5 %).
    expect(feed(e, [[100, 0.685]]).map((f) => [f.ruleId, f.details!.movePoints, f.details!.windowStartValue])).toEqual([[3, -1, 0.695]]);
  });

  it('an extreme leaving its window during quiet prices: the next price measures from what is left', () => {
    const e = make();
    // No rule holds: the 5m window's lowest (30 %) leaves it while small moves keep the token quiet
    // (its band outlives the expiry); 41 % then moves 9 points from what is left (32 %), not 11.
    e.add(rule({ ruleId: 1, type: 'Moves Up By', threshold: thresholdFraction(10), window: '5m' }), T0);
    e.add(rule({ ruleId: 2, type: 'Moves Down By', threshold: thresholdFraction(20), window: '1h', oneTime: true }), T0);
    expect(feed(e, [[0, 0.3], [1, 0.35], [2, 0.33], [3, 0.34], [4, 0.33], [5, 0.32], [6, 0.34], [7, 0.33], [8, 0.34], [9, 0.33]])).toEqual([]);
    expect(feed(e, [[9.5, 0.41]])).toEqual([]);
    // A new window length starts from the price now (41 %), its head on the deques' last entry; 40 %
    // at minute 11 is 7 points over the 15m window's latest lowest (33 %).
    e.add(rule({ ruleId: 3, type: 'Moves Up By', threshold: thresholdFraction(5), window: '15m', oneTime: true }), T0 + 9.5 * MIN);
    const fired = feed(e, [[10, 0.34], [10.5, 0.33], [11, 0.4]]);
    expect(fired.map((f) => [f.ruleId, f.details])).toEqual([
      [3, { window: '15m', windowStartValue: 0.33, windowStartTimeMs: T0 + 11 * MIN, movePoints: 7 }],
    ]);
    // A holding rule: its band ends when the extreme leaves (30 % at minute 6, the prices between
    // staying quiet), so the move dropping then re-arms it and the next rise fires again.
    const h = make();
    h.add(rule({ ruleId: 1, type: 'Moves Up By', threshold: thresholdFraction(5), window: '5m', intervalMs: 0 }), T0);
    expect(feed(h, [[0, 0.3], [1, 0.38]])).toHaveLength(1);
    expect(feed(h, [[2, 0.36], [3, 0.365], [4, 0.36], [5, 0.365], [6, 0.36], [7, 0.365]])).toEqual([]);
    expect(feed(h, [[8, 0.42]]).map((f) => f.details)).toEqual([{ window: '5m', windowStartValue: 0.36, windowStartTimeMs: T0 + 7 * MIN, movePoints: 6 }]);
  });

  it('Recurring: holds while the move lasts, re-arms when it is gone, waits out its interval', () => {
    const e = make();
    e.add(rule({ ruleId: 1, type: 'Moves By', threshold: thresholdFraction(5), window: '15m', intervalMs: 30 * MIN }), T0);
    expect(feed(e, [[0, 0.5], [1, 0.56]])).toHaveLength(1); // up 6
    expect(feed(e, [[2, 0.6], [3, 0.62]])).toEqual([]); // the same move, still holding
    expect(feed(e, [[20, 0.6]])).toEqual([]); // 15 minutes on: moved 2 only, re-armed (paused until minute 31)
    expect(feed(e, [[25, 0.52]])).toEqual([]); // down 8, but in the pause
    const again = feed(e, [[32, 0.51]]); // the pause is over and the fall from 60 % still holds
    expect(again.map((f) => f.details)).toEqual([{ window: '15m', windowStartValue: 0.62, windowStartTimeMs: T0 + 20 * MIN, movePoints: -11 }]);
  });

  it('a fall making new lows: Moves Down By fires once and holds, Moves Up By measures each rebound from the latest low', () => {
    const e = make();
    e.add(rule({ ruleId: 1, type: 'Moves Down By', threshold: thresholdFraction(5), window: '15m' }), T0);
    e.add(rule({ ruleId: 2, type: 'Moves Up By', threshold: thresholdFraction(3), window: '15m' }), T0);
    e.add(rule({ ruleId: 3, type: 'Moves Up By', threshold: thresholdFraction(2), window: '5m' }), T0);
    const moves = (fired: Firing[]) => fired
      .sort((a, b) => a.ruleId - b.ruleId)
      .map((f) => [f.ruleId, f.details!.windowStartValue, (f.details!.windowStartTimeMs as number) - T0, f.details!.movePoints]);
    // 50 % down to 40 %, a point a minute: each price is both windows' new lowest.
    const fall = Array.from({ length: 11 }, (_, i): [number, number] => [i, thresholdFraction(50 - i)]);
    expect(moves(feed(e, fall))).toEqual([[1, 0.5, 1 * MIN, -5]]);
    expect(moves(feed(e, [[11, 0.43]]))).toEqual([[2, 0.4, 11 * MIN, 3], [3, 0.4, 11 * MIN, 3]]);
    // A new low re-arms both up rules (their move is 0); the fall from 50 % still holds (11 points).
    expect(moves(feed(e, [[12, 0.39], [12.5, 0.385]]))).toEqual([]);
    expect(moves(feed(e, [[13, 0.415]]))).toEqual([[2, 0.385, 13 * MIN, 3], [3, 0.385, 13 * MIN, 3]]);
  });

  it('a forgotten price empties the windows; paused rules do not fire; a restart fires on the next price only', () => {
    const e = make();
    e.add(rule({ ruleId: 1, type: 'Moves Up By', threshold: thresholdFraction(10), window: '4h' }), T0);
    feed(e, [[0, 0.3]]);
    e.forgetPrice('yes-1');
    expect(feed(e, [[1, 0.45], [2, 0.5]])).toEqual([]);
    e.setEnabled(1, false, T0 + 3 * MIN);
    expect(feed(e, [[3, 0.6]])).toEqual([]);
    expect(e.setEnabled(1, true, T0 + 4 * MIN)).toEqual([]);
    expect(feed(e, [[5, 0.61]]).map((f) => f.details!.movePoints)).toEqual([16]);
  });

  it('1,500 tokens (past the first 64 KB of the index\'s arrays, which then grow line-aligned): each fires its own rules', () => {
    const e = make();
    const tokens = Array.from({ length: 1500 }, (_, i) => `tok-${i}`);
    tokens.forEach((token, i) => {
      e.add(rule({ ruleId: 2 * i, type: 'Moves Up By', threshold: thresholdFraction(5), window: '15m', token }), T0);
      e.add(rule({ ruleId: 2 * i + 1, type: 'Crossing Up', threshold: thresholdFraction(50), token }), T0);
    });
    const before = tokens.flatMap((token) => feed(e, [[0, 0.4], [1, 0.42]], token));
    expect(before).toEqual([]);
    const fired = tokens.flatMap((token, i) => feed(e, [[2, thresholdFraction(43 + (i % 10))]], token));
    // 43–52 %: 3–12 points up from the window's lowest, 40 % (5 or more fire); from 50 % a crossing too.
    const expected = tokens.flatMap((_, i) => {
      const price = 43 + (i % 10);
      return [...(price - 40 >= 5 ? [2 * i] : []), ...(price >= 50 ? [2 * i + 1] : [])];
    });
    expect(fired.map((f) => f.ruleId).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
    expect(fired.filter((f) => f.ruleType === 'Moves Up By').every((f) => f.details!.windowStartValue === 0.4)).toBe(true);
  });
});

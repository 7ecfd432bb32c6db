import { describe, expect, it } from 'vitest';
import { PRICE_RULE_TYPES, TRIGGER_INTERVAL_MS } from '../../src/domain/enums.js';
import {
  CROSSING, CROSSING_DOWN, CROSSING_STEP, CROSSING_UP, GREATER_THAN, LESS_THAN, thresholdFraction,
} from '../../src/engine/rules.js';
import { implementations, normalize, rule } from './support.js';

const MIN = 60_000;
const fired = (firings: readonly { ruleId: number }[]) => firings.map((f) => f.ruleId).sort((a, b) => a - b);

describe('rule type handles', () => {
  it('name the spec strings in order', () => {
    expect([CROSSING, CROSSING_UP, CROSSING_DOWN, CROSSING_STEP, GREATER_THAN, LESS_THAN]).toEqual([...PRICE_RULE_TYPES]);
  });

  it('turn threshold_percent into an exact decimal fraction', () => {
    expect(thresholdFraction(30)).toBe(0.3);
    expect(thresholdFraction(33.3)).toBe(0.333);
    expect(thresholdFraction(90)).toBe(0.9);
  });
});

describe.each(implementations)('%s', (_name, create) => {
  it('Crossing Up fires when p0 < t <= p1, including a price exactly at the threshold', () => {
    const e = create();
    e.tick('yes-1', 0.45, 0);
    e.add(rule({ ruleId: 1, type: CROSSING_UP, threshold: 0.5 }), 0);
    expect(e.tick('yes-1', 0.49, 1)).toEqual([]);
    expect(normalize(e.tick('yes-1', 0.5, 2))).toEqual([
      { ruleId: 1, subscriptionId: 'sub-1', marketId: 'market-1', token: 'yes-1', ruleType: CROSSING_UP, previousPrice: 0.49, price: 0.5, atMs: 2 },
    ]);
    expect(e.tick('yes-1', 0.6, 3)).toEqual([]);
    expect(e.tick('yes-1', 0.4, 4)).toEqual([]);
  });

  it('setPrice moves the crossing reference without firing crossings; level rules that hold fire', () => {
    const e = create();
    e.tick('yes-1', 0.26, 0);
    e.add(rule({ ruleId: 1, type: CROSSING_UP, threshold: 0.5 }), 0);
    e.add(rule({ ruleId: 2, type: CROSSING_STEP, threshold: 0.1 }), 0);
    e.add(rule({ ruleId: 3, type: GREATER_THAN, threshold: 0.7 }), 0);
    expect(normalize(e.setPrice('yes-1', 0.8, 1))).toEqual([
      { ruleId: 3, subscriptionId: 'sub-3', marketId: 'market-1', token: 'yes-1', ruleType: GREATER_THAN, previousPrice: null, price: 0.8, atMs: 1 },
    ]);
    expect(e.lastPrice('yes-1')).toBe(0.8);
    expect(fired(e.tick('yes-1', 0.79, 2))).toEqual([3]);
    expect(fired(e.tick('yes-1', 0.45, 3))).toEqual([2]);
    expect(fired(e.tick('yes-1', 0.55, 4))).toEqual([1, 2]);
  });

  it('forgetPrice: the next price only sets the reference', () => {
    const e = create();
    e.tick('yes-1', 0.26, 0);
    e.add(rule({ ruleId: 1, type: CROSSING_UP, threshold: 0.5 }), 0);
    e.forgetPrice('yes-1');
    expect(e.lastPrice('yes-1')).toBeUndefined();
    expect(e.tick('yes-1', 0.8, 1)).toEqual([]);
    expect(e.tick('yes-1', 0.4, 2)).toEqual([]);
    expect(fired(e.tick('yes-1', 0.5, 3))).toEqual([1]);
  });

  it('Crossing Down fires when p0 > t >= p1', () => {
    const e = create();
    e.tick('yes-1', 0.55, 0);
    e.add(rule({ ruleId: 1, type: CROSSING_DOWN, threshold: 0.5 }), 0);
    expect(e.tick('yes-1', 0.6, 1)).toEqual([]);
    expect(fired(e.tick('yes-1', 0.5, 2))).toEqual([1]);
    expect(e.tick('yes-1', 0.5, 3)).toEqual([]);
    expect(e.tick('yes-1', 0.7, 4)).toEqual([]);
    expect(fired(e.tick('yes-1', 0.2, 5))).toEqual([1]);
  });

  it('Crossing fires in both directions, once per move', () => {
    const e = create();
    e.tick('yes-1', 0.4, 0);
    e.add(rule({ ruleId: 1, type: CROSSING, threshold: 0.5 }), 0);
    expect(fired(e.tick('yes-1', 0.6, 1))).toEqual([1]);
    expect(fired(e.tick('yes-1', 0.4, 2))).toEqual([1]);
    expect(e.tick('yes-1', 0.45, 3)).toEqual([]);
  });

  it('Crossing Step names every level crossed in one firing', () => {
    const e = create();
    e.tick('yes-1', 0.05, 0);
    e.add(rule({ ruleId: 1, type: CROSSING_STEP, threshold: 0.1 }), 0);
    expect(normalize(e.tick('yes-1', 0.35, 1))[0]?.levels).toEqual([0.1, 0.2, 0.3]);
    expect(e.tick('yes-1', 0.38, 2)).toEqual([]);
    expect(normalize(e.tick('yes-1', 0.3, 3))[0]?.levels).toEqual([0.3]);
    expect(normalize(e.tick('yes-1', 0.1 * 2, 4))[0]?.levels).toEqual([0.2]);
    expect(normalize(e.tick('yes-1', 0.91, 5))[0]?.levels).toEqual([0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]);
  });

  it('Crossing Step treats 0.3 as a level of step 0.1 despite float error', () => {
    const e = create();
    e.tick('yes-1', 0.29, 0);
    e.add(rule({ ruleId: 1, type: CROSSING_STEP, threshold: 0.1 }), 0);
    expect(normalize(e.tick('yes-1', 0.30000000000000004, 1))[0]?.levels).toEqual([0.3]);
    expect(e.tick('yes-1', 0.31, 2)).toEqual([]);
  });

  it('Greater Than and Less Than are strict', () => {
    const e = create();
    e.tick('yes-1', 0.5, 0);
    expect(e.add(rule({ ruleId: 1, type: GREATER_THAN, threshold: 0.5 }), 0)).toEqual([]);
    expect(e.add(rule({ ruleId: 2, type: LESS_THAN, threshold: 0.5 }), 0)).toEqual([]);
    expect(fired(e.tick('yes-1', 0.51, 1))).toEqual([1]);
    expect(fired(e.tick('yes-1', 0.49, 2))).toEqual([2]);
  });

  it('a level rule is checked at once against the last known price when added', () => {
    const e = create();
    e.tick('yes-1', 0.7, 0);
    expect(normalize(e.add(rule({ ruleId: 1, type: GREATER_THAN, threshold: 0.6 }), 5))).toEqual([
      { ruleId: 1, subscriptionId: 'sub-1', marketId: 'market-1', token: 'yes-1', ruleType: GREATER_THAN, previousPrice: null, price: 0.7, atMs: 5 },
    ]);
  });

  it('a Recurring 0m level rule fires on every tick that satisfies it', () => {
    const e = create();
    e.add(rule({ ruleId: 1, type: GREATER_THAN, threshold: 0.6 }), 0);
    expect(fired(e.tick('yes-1', 0.7, 1))).toEqual([1]);
    expect(fired(e.tick('yes-1', 0.71, 2))).toEqual([1]);
    expect(fired(e.tick('yes-1', 0.71, 3))).toEqual([1]);
    expect(e.tick('yes-1', 0.5, 4)).toEqual([]);
  });

  it('a Recurring rule does not fire again within its interval', () => {
    const e = create();
    const interval = TRIGGER_INTERVAL_MS['30m'];
    e.tick('yes-1', 0.4, 0);
    e.add(rule({ ruleId: 1, type: CROSSING, threshold: 0.5, intervalMs: interval }), 0);
    expect(fired(e.tick('yes-1', 0.6, 1))).toEqual([1]);
    expect(e.tick('yes-1', 0.4, 10 * MIN)).toEqual([]);
    expect(e.tick('yes-1', 0.6, 1 + interval - 1)).toEqual([]);
    expect(fired(e.tick('yes-1', 0.4, 1 + interval))).toEqual([1]);
  });

  it('a Recurring level rule still true when its pause ends fires then, by sweep', () => {
    const e = create();
    const interval = TRIGGER_INTERVAL_MS['5m'];
    e.tick('yes-1', 0.7, 0);
    expect(fired(e.add(rule({ ruleId: 1, type: GREATER_THAN, threshold: 0.6, intervalMs: interval }), 0))).toEqual([1]);
    expect(e.tick('yes-1', 0.72, MIN)).toEqual([]);
    expect(e.sweep(interval - 1)).toEqual([]);
    expect(normalize(e.sweep(interval))).toMatchObject([{ ruleId: 1, previousPrice: null, price: 0.72, atMs: interval }]);
    expect(e.sweep(2 * interval - 1)).toEqual([]);
    expect(e.tick('yes-1', 0.5, 2 * interval - 1)).toEqual([]);
    expect(e.sweep(2 * interval)).toEqual([]);
    expect(fired(e.tick('yes-1', 0.65, 2 * interval + 1))).toEqual([1]);
  });

  it('a tick after the pause ended fires a level rule that was not swept', () => {
    const e = create();
    e.tick('yes-1', 0.3, 0);
    e.add(rule({ ruleId: 1, type: LESS_THAN, threshold: 0.4, intervalMs: 5 * MIN }), 0);
    const firings = normalize(e.tick('yes-1', 0.35, 6 * MIN));
    expect(firings.map((f) => f.price)).toEqual([0.3]); // the pause ended at 5m, against the price then known
  });

  it('a One Time rule fires once and is disabled', () => {
    const e = create();
    e.tick('yes-1', 0.4, 0);
    e.add(rule({ ruleId: 1, type: CROSSING, threshold: 0.5, oneTime: true }), 0);
    e.add(rule({ ruleId: 2, type: GREATER_THAN, threshold: 0.45, oneTime: true }), 0);
    expect(fired(e.tick('yes-1', 0.6, 1))).toEqual([1, 2]);
    expect(e.tick('yes-1', 0.4, 2)).toEqual([]);
    expect(e.tick('yes-1', 0.6, 3)).toEqual([]);
    expect(fired(e.setEnabled(2, true, 4))).toEqual([2]);
  });

  it('an expired rule never fires', () => {
    const e = create();
    e.tick('yes-1', 0.4, 0);
    e.add(rule({ ruleId: 1, type: CROSSING_UP, threshold: 0.5, expiresAtMs: 100 }), 0);
    e.add(rule({ ruleId: 2, type: GREATER_THAN, threshold: 0.5, expiresAtMs: 100 }), 0);
    expect(e.tick('yes-1', 0.6, 100)).toEqual([]);
    expect(e.add(rule({ ruleId: 3, type: GREATER_THAN, threshold: 0.5, expiresAtMs: 50 }), 100)).toEqual([]);
    expect(e.tick('yes-1', 0.4, 101)).toEqual([]);
    expect(e.tick('yes-1', 0.6, 102)).toEqual([]);
  });

  it('a paused rule never fires, and a restart resets the crossing reference to the last price', () => {
    const e = create();
    e.tick('yes-1', 0.4, 0);
    e.add(rule({ ruleId: 1, type: CROSSING_UP, threshold: 0.5 }), 0);
    e.setEnabled(1, false, 1);
    expect(e.tick('yes-1', 0.6, 2)).toEqual([]);
    expect(e.tick('yes-1', 0.45, 3)).toEqual([]);
    expect(e.tick('yes-1', 0.55, 4)).toEqual([]);
    expect(e.setEnabled(1, true, 5)).toEqual([]);
    expect(e.tick('yes-1', 0.56, 6)).toEqual([]);
    expect(e.tick('yes-1', 0.4, 7)).toEqual([]);
    expect(fired(e.tick('yes-1', 0.5, 8))).toEqual([1]);
  });

  it('a restart checks a level rule at once and clears its pause', () => {
    const e = create();
    e.tick('yes-1', 0.7, 0);
    e.add(rule({ ruleId: 1, type: GREATER_THAN, threshold: 0.5, intervalMs: TRIGGER_INTERVAL_MS['24h'] }), 0);
    e.setEnabled(1, false, 1);
    expect(fired(e.setEnabled(1, true, 2))).toEqual([1]);
    expect(e.setEnabled(1, true, 3)).toEqual([]);
  });

  it('a crossing needs a previous price: the first tick only sets the reference', () => {
    const e = create();
    e.add(rule({ ruleId: 1, type: CROSSING, threshold: 0.5 }), 0);
    expect(e.tick('yes-1', 0.6, 1)).toEqual([]);
    expect(fired(e.tick('yes-1', 0.4, 2))).toEqual([1]);
    expect(e.lastPrice('yes-1')).toBe(0.4);
  });

  it('a rule added later starts from the last known price', () => {
    const e = create();
    e.tick('yes-1', 0.6, 0);
    e.add(rule({ ruleId: 1, type: CROSSING_DOWN, threshold: 0.5 }), 1);
    expect(fired(e.tick('yes-1', 0.45, 2))).toEqual([1]);
  });

  it('a removed rule never fires and its id can be reused', () => {
    const e = create();
    e.tick('yes-1', 0.4, 0);
    e.add(rule({ ruleId: 1, type: CROSSING_UP, threshold: 0.5 }), 0);
    e.remove(1);
    expect(e.tick('yes-1', 0.6, 1)).toEqual([]);
    e.add(rule({ ruleId: 1, type: CROSSING_DOWN, threshold: 0.5, subscriptionId: 'other' }), 2);
    expect(normalize(e.tick('yes-1', 0.4, 3)).map((f) => f.subscriptionId)).toEqual(['other']);
  });

  it('a pause restored from lastFiredAtMs holds until it ends', () => {
    const e = create();
    e.tick('yes-1', 0.7, 0);
    const pausedLevel = rule({ ruleId: 1, type: GREATER_THAN, threshold: 0.5, intervalMs: 30 * MIN, lastFiredAtMs: -10 * MIN });
    expect(e.add(pausedLevel, 0)).toEqual([]);
    expect(e.tick('yes-1', 0.8, 19 * MIN)).toEqual([]);
    expect(fired(e.sweep(20 * MIN))).toEqual([1]);
  });

  it('keeps tokens apart', () => {
    const e = create();
    e.tick('yes-1', 0.4, 0);
    e.tick('yes-2', 0.4, 0);
    e.add(rule({ ruleId: 1, type: CROSSING_UP, threshold: 0.5, token: 'yes-2' }), 0);
    expect(e.tick('yes-1', 0.6, 1)).toEqual([]);
    expect(fired(e.tick('yes-2', 0.6, 2))).toEqual([1]);
  });
});

describe.each(implementations)('%s: re-arm bands', (_name, create) => {
  const band = thresholdFraction(2); // rearmPoints 2

  it('Crossing Up fires once while the price dances around t, again after it went back past t − band', () => {
    const e = create();
    e.tick('yes-1', 0.49, 0);
    e.add(rule({ ruleId: 1, type: CROSSING_UP, threshold: 0.5, rearmBand: band }), 0);
    const seen = [0.51, 0.49, 0.505, 0.481, 0.5, 0.52].map((p, i) => fired(e.tick('yes-1', p, i + 1)));
    expect(seen).toEqual([[1], [], [], [], [], []]);
    expect(e.tick('yes-1', 0.48, 10)).toEqual([]); // exactly t − band re-arms; a downward move fires nothing
    expect(normalize(e.tick('yes-1', 0.5, 11))).toEqual([
      { ruleId: 1, subscriptionId: 'sub-1', marketId: 'market-1', token: 'yes-1', ruleType: CROSSING_UP, previousPrice: 0.48, price: 0.5, atMs: 11 },
    ]);
  });

  it('Crossing Down mirrors it: re-armed at t + band', () => {
    const e = create();
    e.tick('yes-1', 0.31, 0);
    e.add(rule({ ruleId: 1, type: CROSSING_DOWN, threshold: 0.3, rearmBand: band }), 0);
    expect([0.29, 0.31, 0.29, 0.319, 0.28].map((p, i) => fired(e.tick('yes-1', p, i + 1)))).toEqual([[1], [], [], [], []]);
    expect(e.tick('yes-1', 0.32, 10)).toEqual([]);
    expect(fired(e.tick('yes-1', 0.3, 11))).toEqual([1]);
  });

  it('Crossing fires the crossing back when the price reaches the far edge of the band', () => {
    const e = create();
    e.tick('yes-1', 0.45, 0);
    e.add(rule({ ruleId: 1, type: CROSSING, threshold: 0.5, rearmBand: band }), 0);
    expect(fired(e.tick('yes-1', 0.51, 1))).toEqual([1]);
    expect(e.tick('yes-1', 0.49, 2)).toEqual([]);
    expect(e.tick('yes-1', 0.51, 3)).toEqual([]);
    expect(normalize(e.tick('yes-1', 0.47, 4))).toEqual([
      { ruleId: 1, subscriptionId: 'sub-1', marketId: 'market-1', token: 'yes-1', ruleType: CROSSING, previousPrice: 0.51, price: 0.47, atMs: 4 },
    ]);
    expect(e.tick('yes-1', 0.51, 5)).toEqual([]); // now inside the band of a downward firing: 0.52 fires
    expect(fired(e.tick('yes-1', 0.52, 6))).toEqual([1]);
  });

  it('rearmBand 0 and rules without a band keep the plain behaviour; Step and level rules ignore a band', () => {
    const e = create();
    e.tick('yes-1', 0.49, 0);
    e.add(rule({ ruleId: 1, type: CROSSING, threshold: 0.5, rearmBand: 0 }), 0);
    e.add(rule({ ruleId: 2, type: CROSSING_STEP, threshold: 0.1, rearmBand: band }), 0);
    e.add(rule({ ruleId: 3, type: CROSSING_UP, threshold: 0.5, rearmBand: band, oneTime: true }), 0);
    expect(fired(e.tick('yes-1', 0.51, 1))).toEqual([1, 2, 3]);
    expect(fired(e.tick('yes-1', 0.49, 2))).toEqual([1, 2]);
    expect(fired(e.tick('yes-1', 0.51, 3))).toEqual([1, 2]);
  });

  it('a price past the band during a Recurring pause re-arms without firing; restart clears the band', () => {
    const e = create();
    e.tick('yes-1', 0.45, 0);
    e.add(rule({ ruleId: 1, type: CROSSING, threshold: 0.5, rearmBand: band, intervalMs: 5 * MIN }), 0);
    expect(fired(e.tick('yes-1', 0.55, 1))).toEqual([1]);
    expect(e.tick('yes-1', 0.45, 2)).toEqual([]); // the crossing back, inside the pause: re-armed only
    expect(fired(e.tick('yes-1', 0.55, 5 * MIN + 1))).toEqual([1]); // armed: fires at t again
    expect(e.tick('yes-1', 0.49, 10 * MIN + 2)).toEqual([]);
    e.setEnabled(1, false, 10 * MIN + 3);
    e.setEnabled(1, true, 10 * MIN + 4);
    expect(fired(e.tick('yes-1', 0.51, 10 * MIN + 5))).toEqual([1]);
  });

  it('a band restored on reload holds until passed; a known price already past it re-arms at once', () => {
    const e = create();
    e.tick('yes-1', 0.49, 0);
    e.add(rule({ ruleId: 1, type: CROSSING_UP, threshold: 0.5, rearmBand: band, rearmAfter: 'up' }), 0);
    expect(e.tick('yes-1', 0.51, 1)).toEqual([]);
    e.tick('yes-1', 0.47, 2);
    e.add(rule({ ruleId: 2, type: CROSSING_UP, threshold: 0.5, rearmBand: band, rearmAfter: 'up' }), 3);
    expect(fired(e.tick('yes-1', 0.5, 4))).toEqual([1, 2]);
  });

  it('setPrice past the band re-arms without firing', () => {
    const e = create();
    e.tick('yes-1', 0.45, 0);
    e.add(rule({ ruleId: 1, type: CROSSING, threshold: 0.5, rearmBand: band }), 0);
    expect(fired(e.tick('yes-1', 0.55, 1))).toEqual([1]);
    expect(e.setPrice('yes-1', 0.4, 2)).toEqual([]);
    expect(fired(e.tick('yes-1', 0.55, 3))).toEqual([1]);
  });
});

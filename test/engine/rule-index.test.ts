import { describe, expect, it } from 'vitest';
import { RuleIndex } from '../../src/engine/index.js';
import { CROSSING, GREATER_THAN, NO_FIRINGS, thresholdFraction } from '../../src/engine/rules.js';
import { normalize, rule } from './support.js';

describe('RuleIndex specifics', () => {
  it('ticks by dense token index exactly as by token id', () => {
    const byId = new RuleIndex();
    const byIndex = new RuleIndex();
    for (const e of [byId, byIndex]) {
      e.tick('yes-1', 0.4, 0);
      e.add(rule({ ruleId: 1, type: CROSSING, threshold: 0.5 }), 0);
    }
    const index = byIndex.tokenIndex('yes-1');
    expect(normalize(byIndex.tickIndex(index, 0.6, 1))).toEqual(normalize(byId.tick('yes-1', 0.6, 1)));
    expect(() => byIndex.tickIndex(99, 0.5, 2)).toThrow(RangeError);
  });

  it('releases a token only when no rule is on it, and reuses its dense index without its old price', () => {
    const e = new RuleIndex();
    e.add(rule({ ruleId: 1, type: CROSSING, threshold: 0.5, token: 'a' }), 0);
    e.add(rule({ ruleId: 2, type: 'Moves Up By', threshold: thresholdFraction(10), window: '1h', token: 'a' }), 0);
    e.tick('a', 0.4, 1);
    const a = e.tokenIndex('a');
    e.releaseToken('a'); // two rules on it: kept
    expect(e.lastPrice('a')).toBe(0.4);
    e.remove(1);
    e.releaseToken('a'); // the window rule still is
    expect(e.tokenCount).toBe(1);
    e.remove(2);
    e.releaseToken('a');
    expect(e.tokenCount).toBe(0);
    expect(e.lastPrice('a')).toBeUndefined();
    // The next token takes the freed index, fresh: its first price only sets the reference.
    expect(e.tokenIndex('b')).toBe(a);
    e.add(rule({ ruleId: 3, type: CROSSING, threshold: 0.5, token: 'b' }), 2);
    expect(e.tickIndex(a, 0.6, 3)).toBe(NO_FIRINGS);
    expect(normalize(e.tickIndex(a, 0.4, 4))).toMatchObject([{ ruleId: 3, token: 'b', previousPrice: 0.6, price: 0.4 }]);
  });

  it('keeps as many dense indexes as tokens of now over a long run whose tokens come and go', () => {
    const e = new RuleIndex();
    for (let round = 0; round < 500; round++) {
      const token = `t-${round}`;
      e.add(rule({ ruleId: round % 7, type: CROSSING, threshold: 0.5, token }), round);
      e.tick(token, 0.4 + (round % 3) / 10, round);
      e.remove(round % 7);
      e.releaseToken(token);
    }
    expect(e.tokenCount).toBe(0);
    expect(e.tokenIndex('last')).toBe(0);
  });

  it('answers quiet ticks with the shared empty result', () => {
    const e = new RuleIndex();
    e.add(rule({ ruleId: 1, type: CROSSING, threshold: 0.5 }), 0);
    e.tick('yes-1', 0.4, 1);
    expect(e.tick('yes-1', 0.41, 2)).toBe(NO_FIRINGS);
  });

  it('counts rules and ignores unknown ids', () => {
    const e = new RuleIndex();
    e.add(rule({ ruleId: 3, type: GREATER_THAN, threshold: 0.5 }), 0);
    e.add(rule({ ruleId: 3, type: GREATER_THAN, threshold: 0.6 }), 0);
    expect(e.size).toBe(1);
    e.remove(7);
    expect(e.setEnabled(7, true, 0)).toBe(NO_FIRINGS);
    e.remove(3);
    expect(e.size).toBe(0);
  });

  it('settles a bulk load before the first tick without changing what fires', () => {
    const e = new RuleIndex();
    e.tick('yes-1', 0, 0);
    for (let id = 0; id < 500; id++) e.add(rule({ ruleId: id, type: CROSSING, threshold: ((id * 37) % 97 + 1) / 100 }), 0);
    e.settleAll();
    const fired = e.tick('yes-1', 1, 1);
    expect(new Set(fired.map((f) => f.ruleId)).size).toBe(500);
  });

  it('ignores a non-finite price', () => {
    const e = new RuleIndex();
    e.tick('yes-1', 0.4, 0);
    expect(e.tick('yes-1', Number.NaN, 1)).toBe(NO_FIRINGS);
    expect(e.lastPrice('yes-1')).toBe(0.4);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { thresholdFraction } from '../../src/engine/rules.js';
import { allLevels, crossedLevels, isValidStep } from '../../src/engine/step-levels.js';
import { SubscriptionTypeConfig } from '../../src/services/subscriptions/schemas.js';

describe('step levels', () => {
  it('are the multiples strictly between 0 and 1', () => {
    expect(allLevels(0.25)).toEqual([0.25, 0.5, 0.75]);
    expect(allLevels(0.1)).toEqual([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]);
    expect(allLevels(0.5)).toEqual([0.5]);
    expect(allLevels(1)).toEqual([]);
    expect(allLevels(0)).toEqual([]);
  });

  it('treat 3 × 0.1 as the level 0.3', () => {
    expect(crossedLevels(0.1, 0.29, 0.3)).toEqual([0.3]);
    expect(crossedLevels(0.1, 0.3, 0.31)).toEqual([]);
    expect(crossedLevels(0.1, 0.31, 0.3)).toEqual([0.3]);
    expect(crossedLevels(0.1, 0.3, 0.29)).toEqual([]);
    expect(crossedLevels(0.1, 0.29, 0.1 * 3)).toEqual([0.3]);
  });

  it('list every level crossed in crossing order', () => {
    expect(crossedLevels(0.1, 0.05, 0.35)).toEqual([0.1, 0.2, 0.3]);
    expect(crossedLevels(0.1, 0.35, 0.05)).toEqual([0.3, 0.2, 0.1]);
    expect(crossedLevels(0.25, 0, 1)).toEqual([0.25, 0.5, 0.75]);
    expect(crossedLevels(0.25, 1, 0)).toEqual([0.75, 0.5, 0.25]);
  });

  it('the subscription schema accepts exactly the Crossing Steps the engine fires', () => {
    const percent = fc.oneof(fc.double({ min: 1e-6, max: 50, noNaN: true }), fc.double({ min: 0.0095, max: 0.0105, noNaN: true }));
    fc.assert(
      fc.property(percent, (p) => {
        const accepted = SubscriptionTypeConfig.safeParse({ type: 'Crossing Step', config: { params: { threshold_percent: p } } }).success;
        expect(accepted, String(p)).toBe(isValidStep(thresholdFraction(p)));
        if (accepted) expect(allLevels(thresholdFraction(p)).length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });
});

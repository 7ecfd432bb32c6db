import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRICE_RULE_TYPES } from '../../src/domain/enums.js';
import { conditionWords, repeatWords, thresholdPresets } from '../../src/services/subscriptions/index.js';

describe('the guided alert: presets around the price', () => {
  it('offers the next levels above for a rise, below for a fall, both sides for either way', () => {
    expect(thresholdPresets('Crossing Up', 42)).toEqual([45, 50, 55]);
    expect(thresholdPresets('Greater Than', 45)).toEqual([50, 55, 60]);
    expect(thresholdPresets('Crossing Down', 42)).toEqual([30, 35, 40]);
    expect(thresholdPresets('Crossing', 42)).toEqual([35, 40, 45, 50]);
    expect(thresholdPresets('Crossing Step', 42)).toEqual([1, 2, 5, 10]);
  });

  it('near the edges it steps by single points, and turns around when nothing is left on that side', () => {
    expect(thresholdPresets('Crossing Up', 96.5)).toEqual([97, 98, 99]);
    expect(thresholdPresets('Crossing Down', 3)).toEqual([1, 2]);
    expect(thresholdPresets('Crossing Up', 99.5)).toEqual([97, 98, 99]);
    expect(thresholdPresets('Crossing Down', 0.2)).toEqual([1, 2, 3]);
  });

  it('a market with no price yet gets presets around 50', () => {
    expect(thresholdPresets('Crossing Up', null)).toEqual([55, 60, 65]);
  });

  it('every preset is a threshold the service accepts: strictly between 0 and 100, ascending, distinct', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PRICE_RULE_TYPES), fc.option(fc.double({ min: 0, max: 100, noNaN: true })), (type, price) => {
        const presets = thresholdPresets(type, price);
        expect(presets.length).toBeGreaterThan(0);
        expect(presets.every((p) => p > 0 && p < 100)).toBe(true);
        expect([...new Set(presets)].sort((a, b) => a - b)).toEqual(presets);
      }),
    );
  });

  it('says the condition and the repeat in words', () => {
    expect(conditionWords('Crossing Up', 60)).toBe('rises above 60%');
    expect(conditionWords('Crossing', 50)).toBe('crosses 50% either way');
    expect(repeatWords({ triggerType: 'One Time' })).toBe('only once');
    expect(repeatWords({ triggerType: 'Recurring' })).toBe('at most once every 30m');
  });
});

import { describe, expect, it } from 'vitest';
import { allLevels, crossedLevels } from '../../src/engine/step-levels.js';

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
});

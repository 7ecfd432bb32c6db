import { describe, expect, it } from 'vitest';
import { marketChartUrl } from '../../src/domain/links.js';

describe('marketChartUrl', () => {
  it('points at the chart route under the public base, whatever its trailing slashes', () => {
    expect(marketChartUrl('https://ow.example', 'm1')).toBe('https://ow.example/markets/m1/chart.svg');
    expect(marketChartUrl('https://ow.example/base//', 'm1')).toBe('https://ow.example/base/markets/m1/chart.svg');
  });

  it('encodes the market id so it stays one path segment', () => {
    expect(marketChartUrl('https://ow.example', 'a/b c')).toBe('https://ow.example/markets/a%2Fb%20c/chart.svg');
  });
});

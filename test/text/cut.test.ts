import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutText } from '../../src/text/cut.js';

describe('cutText', () => {
  it('keeps a text that fits and cuts a longer one to the limit, ending in …', () => {
    expect(cutText('abc', 3)).toBe('abc');
    expect(cutText('abcd', 3)).toBe('ab…');
  });

  it('never cuts an emoji in half', () => {
    // The emoji would straddle the cut: it goes whole, and the text is one shorter than the limit.
    expect(cutText('ab😀cd', 4)).toBe('ab…');
    expect(cutText('abc😀d', 4)).toBe('abc…');
  });

  it('is at most the limit and well formed for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.integer({ min: 2, max: 40 }), (text, max) => {
        const cut = cutText(text, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(cut)).toBe(false);
      }),
    );
  });
});

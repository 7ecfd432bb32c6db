import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutLines, cutText } from '../../src/text/cut.js';

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

describe('cutLines', () => {
  const list = Array.from({ length: 10 }, (_, i) => `line ${i} ${'x'.repeat(20)}`).join('\n');

  it('keeps a text that fits', () => {
    expect(cutLines(list, list.length)).toBe(list);
  });

  it('cuts after the last whole line that fits and says how many lines were left out', () => {
    const cut = cutLines(list, 100);
    expect(cut.length).toBeLessThanOrEqual(100);
    expect(cut).toBe(`${list.split('\n').slice(0, 2).join('\n')}\n… 8 more lines not shown`);
  });

  it('cuts a first line too long on its own like cutText', () => {
    expect(cutLines(`${'a'.repeat(50)}\nb`, 10)).toBe(cutText('a'.repeat(50), 10));
  });

  it('is at most the limit for any list', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 30 }), { maxLength: 40 }), fc.integer({ min: 2, max: 200 }), (lines, max) => {
        expect(cutLines(lines.join('\n'), max).length).toBeLessThanOrEqual(max);
      }),
    );
  });
});

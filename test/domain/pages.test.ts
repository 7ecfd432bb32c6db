import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pageOf } from '../../src/domain/pages.js';

const header = 'Your alerts (n):';

describe('pageOf: pages of whole lines under a limit', () => {
  it('every page fits, every line is shown once, whole and in order, numbered from 1 on each page', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1, maxLength: 700 }).map((s) => s.replace(/\n/g, ' ')), { maxLength: 60 }),
        fc.constantFrom(2000, 4096),
        fc.integer({ min: 1, max: 10 }),
        (lines, limit, perPage) => {
          const first = pageOf(lines, 1, { header, limit, perPage, numbered: true });
          const shown: string[] = [];
          for (let p = 1; p <= first.pages; p++) {
            const page = pageOf(lines, p, { header, limit, perPage, numbered: true });
            expect(page.page).toBe(p);
            expect(page.text.length).toBeLessThanOrEqual(limit);
            expect(page.end - page.start).toBeLessThanOrEqual(perPage);
            const body = page.text.split('\n').slice(1, first.pages > 1 ? -1 : undefined);
            body.forEach((line, i) => {
              expect(line.startsWith(`${i + 1}. `)).toBe(true);
              shown.push(line.slice(`${i + 1}. `.length));
            });
          }
          expect(shown).toHaveLength(lines.length);
          shown.forEach((line, i) => expect(line === lines[i] || (line.endsWith('…') && lines[i]!.startsWith(line.slice(0, -1)))).toBe(true));
        },
      ),
    );
  });

  it('a page past the end answers the last one; page 0 or NaN the first', () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    const opts = { header, limit: 4096, perPage: 8 };
    expect(pageOf(lines, 99, opts)).toMatchObject({ page: 3, pages: 3, start: 16, end: 20 });
    expect(pageOf(lines, 0, opts)).toMatchObject({ page: 1, start: 0, end: 8 });
    expect(pageOf(lines, Number.NaN, opts).page).toBe(1);
    expect(pageOf(lines, 2, opts).text).toBe(['Your alerts (n):', ...lines.slice(8, 16), 'Page 2 of 3'].join('\n'));
  });

  it('one page has no footer; no lines give the header alone', () => {
    expect(pageOf(['a', 'b'], 1, { header, limit: 2000, perPage: 8 }).text).toBe('Your alerts (n):\na\nb');
    expect(pageOf([], 1, { header, limit: 2000, perPage: 8 })).toMatchObject({ page: 1, pages: 1, text: 'Your alerts (n):' });
  });
});

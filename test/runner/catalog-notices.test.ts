import { describe, expect, it } from 'vitest';
import type { MarketRow } from '../../src/delivery/payloads.js';
import { changesEventMarkets, closingOf, noticesFor, type CatalogChange } from '../../src/runner/catalog-notices.js';

const market = (id: string) => ({ id, question: `${id}?` }) as MarketRow;
const m1 = market('m1');
const m2 = market('m2');
const change = (kind: CatalogChange['kind'], marketId: string | null = null): CatalogChange => ({
  id: 1, kind, eventId: 'e1', marketId, detectedAt: new Date('2026-03-01T10:00:00.000Z'),
});

describe('what a catalog change means', () => {
  it('a new event opens each of its markets', () => {
    expect(noticesFor(change('new_event'), [m1, m2])).toEqual([
      { scope: 'Market', trigger: 'Open', market: m1 },
      { scope: 'Market', trigger: 'Open', market: m2 },
    ]);
  });

  it('a new or closed market is announced when the event still lists it, and only then', () => {
    expect(noticesFor(change('new_market', 'm2'), [m1, m2])).toEqual([{ scope: 'Market', trigger: 'Open', market: m2 }]);
    expect(noticesFor(change('closed_market', 'm1'), [m1, m2])).toEqual([{ scope: 'Market', trigger: 'Closed', market: m1 }]);
    expect(noticesFor(change('closed_market', 'gone'), [m1])).toEqual([]);
  });

  it('a closed event names its market only when it has exactly one', () => {
    expect(noticesFor(change('closed_event'), [m1])).toEqual([{ scope: 'Event', trigger: 'Closed', market: m1 }]);
    expect(noticesFor(change('closed_event'), [m1, m2])).toEqual([{ scope: 'Event', trigger: 'Closed', market: undefined }]);
  });

  it('closings stop the Event-scope rules of a closed event and the Market-scope rules of a closed market', () => {
    expect(closingOf(change('closed_event'))).toEqual({ kind: 'event closed', scope: 'Event', eventId: 'e1' });
    expect(closingOf(change('closed_market', 'm1'))).toEqual({ kind: 'market closed', scope: 'Market', marketId: 'm1' });
    expect(closingOf(change('closed_market'))).toBeUndefined();
    expect(closingOf(change('new_market', 'm1'))).toBeUndefined();
  });

  it('price rules follow every change but an event closing', () => {
    expect(changesEventMarkets(change('new_market', 'm1'))).toBe(true);
    expect(changesEventMarkets(change('closed_market', 'm1'))).toBe(true);
    expect(changesEventMarkets(change('closed_event'))).toBe(false);
  });

  it('a resolution is for Resolution rules only: no Open/Closed notice, no closing, no price rule to follow', () => {
    expect(noticesFor(change('resolution', 'm1'), [m1, m2])).toEqual([]);
    expect(closingOf(change('resolution', 'm1'))).toBeUndefined();
    expect(changesEventMarkets(change('resolution', 'm1'))).toBe(false);
  });
});

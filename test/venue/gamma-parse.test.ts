import { describe, expect, it } from 'vitest';
import { isOpen, toVenueEvent, toVenueMarket } from '../../src/venue/gamma/types.js';
import { fixture } from './support.js';

describe('Gamma event parsing', () => {
  const raw = fixture('event.json');

  it('decodes the JSON-in-string fields once into arrays', () => {
    const event = toVenueEvent(raw);
    const market = event?.markets[0];
    expect(market?.outcomes).toEqual(['Yes', 'No']);
    expect(market?.outcomePrices).toEqual([0.535, 0.465]);
    expect(market?.clobTokenIds).toEqual([
      '71321045679252212594626385532706912750332728571942532289631379312455583992563',
      '52114319501245915516055106046884209969926127482827954674443846427813813222426',
    ]);
  });

  it('coerces decimal strings to numbers and keeps the event fields we use', () => {
    const event = toVenueEvent(raw);
    expect(event).toMatchObject({
      id: '16085',
      slug: 'fed-decision-in-december',
      liquidity: 1520345.6271,
      volume: 25874123.55,
      volume24hr: 812345.1,
      negRisk: true,
      active: true,
      closed: false,
      startDate: '2025-10-29T16:00:00Z',
      tags: [
        { id: '2', label: 'Politics', slug: 'politics' },
        { id: '100196', label: 'Fed', slug: 'fed' },
      ],
    });
    expect(event?.markets[0]).toMatchObject({ id: '253591', eventId: '16085', volume: 8123456.789012, liquidity: 481234.5567, bestBid: 0.53, bestAsk: 0.54, tickSize: 0.01 });
    expect(event?.markets[1]).toMatchObject({ volume: 1234.5, liquidity: 0, bestBid: 0.44, bestAsk: 0.46, endDate: null });
  });

  it('ignores unknown fields', () => {
    const event = toVenueEvent(raw);
    expect(event).not.toHaveProperty('commentCount');
    expect(event?.tags[0]).not.toHaveProperty('forceShow');
  });

  it('skips a market without exactly two outcomes and keeps the rest of the event', () => {
    const skipped: unknown[] = [];
    const event = toVenueEvent(raw, (kind, id, reason) => skipped.push({ kind, id, reason }));
    expect(event?.markets.map((m) => m.id)).toEqual(['253591', '253592']);
    expect(skipped).toEqual([expect.objectContaining({ kind: 'market', id: '12' })]);
  });

  it('skips a market whose JSON-in-string field is not JSON', () => {
    expect(toVenueMarket({ id: '1', outcomes: 'Yes,No', clobTokenIds: '["1","2"]' })).toBeNull();
  });

  it('says a market is open only when active, not closed and not archived', () => {
    const [open, closed] = toVenueEvent(raw)?.markets ?? [];
    expect(open && isOpen(open)).toBe(true);
    expect(closed && isOpen(closed)).toBe(false);
    expect(isOpen({ active: true, closed: false, archived: true })).toBe(false);
    expect(isOpen({ active: false, closed: false, archived: false })).toBe(false);
  });
});

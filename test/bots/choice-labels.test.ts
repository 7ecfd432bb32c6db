import { describe, expect, it } from 'vitest';
import { alertChoices, marketChoices, type LabelledMarket } from '../../src/bots/discord/choice-labels.js';
import type { SubscriptionView } from '../../src/services/subscriptions/index.js';

const now = new Date('2026-03-01T00:00:00Z');
const market = (over: Partial<LabelledMarket> = {}): LabelledMarket => ({
  id: '501',
  question: 'Will the Fed cut in June?',
  eventTitle: 'Fed decision in June',
  outcomes: ['Yes', 'No'],
  outcomePrices: [0.625, 0.375],
  endDate: '2026-06-18T18:00:00Z',
  ...over,
});

describe('Discord autocomplete market labels', () => {
  it('read question · outcome price · end date; the year only when it is not this one; "ended" once past', () => {
    expect(marketChoices([market()], now)).toEqual([{ name: 'Will the Fed cut in June? · Yes 62.5 % · ends Jun 18', value: '501' }]);
    expect(marketChoices([market({ endDate: '2027-01-05T00:00:00Z' })], now)[0]!.name).toBe('Will the Fed cut in June? · Yes 62.5 % · ends Jan 5, 2027');
    expect(marketChoices([market({ endDate: '2026-02-01T00:00:00Z' })], now)[0]!.name).toBe('Will the Fed cut in June? · Yes 62.5 % · ended Feb 1');
    expect(marketChoices([market({ endDate: null, outcomePrices: [] })], now)[0]!.name).toBe('Will the Fed cut in June? · Yes');
  });

  it('cut the question, never the price or the date, to fit 100 characters', () => {
    const [choice] = marketChoices([market({ question: `Will ${'very '.repeat(40)}long things happen?` })], now);
    expect(choice!.name.length).toBeLessThanOrEqual(100);
    expect(choice!.name).toMatch(/^Will very very .*… · Yes 62\.5 % · ends Jun 18$/);
  });

  it('two markets that read the same get their event titles; still alike, their ids', () => {
    const a = market({ id: '1', eventTitle: 'Mayor race' });
    const b = market({ id: '2', eventTitle: 'Council vote' });
    const other = market({ id: '3', question: 'Will it rain?' });
    expect(marketChoices([a, b, other], now).map((c) => c.name)).toEqual([
      'Will the Fed cut in June? · Mayor race · Yes 62.5 % · ends Jun 18',
      'Will the Fed cut in June? · Council vote · Yes 62.5 % · ends Jun 18',
      'Will it rain? · Yes 62.5 % · ends Jun 18',
    ]);
    const twins = marketChoices([market({ id: '7' }), market({ id: '8' })], now).map((c) => c.name);
    expect(new Set(twins).size).toBe(2);
    expect(twins[0]).toMatch(/ · #7$/);
    const long = marketChoices([market({ id: '1', eventTitle: 'E'.repeat(300), question: 'Q'.repeat(300) }), market({ id: '2', eventTitle: 'F'.repeat(300), question: 'Q'.repeat(300) })], now);
    expect(long.every((c) => c.name.length <= 100)).toBe(true);
    expect(new Set(long.map((c) => c.name)).size).toBe(2);
  });
});

describe('Discord autocomplete alert labels', () => {
  const sub = (id: string, over: Partial<SubscriptionView> = {}) =>
    ({
      subscriptionId: id,
      subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 60 } } },
      rule: { type: 'Crossing Up', params: { thresholdPercent: 60, triggerType: 'Recurring' } },
      marketQuestion: 'Will the Fed cut in June?',
      watchlistName: 'My watchlist',
      triggerType: 'Recurring',
      status: { enabled: true, reason: 'Created' },
      ...over,
    }) as unknown as SubscriptionView;

  it('say the rule in words without the id, and number alerts that read the same', () => {
    const choices = alertChoices([
      sub('0193aaaa-1111-7000-8000-000000000001'),
      sub('0193aaaa-1111-7000-8000-000000000002', { triggerType: 'One Time', status: { enabled: false, reason: 'Paused by user' } } as Partial<SubscriptionView>),
      sub('0193aaaa-1111-7000-8000-000000000003'),
    ]);
    expect(choices).toEqual([
      { name: 'Crossing Up 60% · Will the Fed cut in June? · every 30m (1)', value: '0193aaaa-1111-7000-8000-000000000001' },
      { name: 'Crossing Up 60% · Will the Fed cut in June? · once · paused', value: '0193aaaa-1111-7000-8000-000000000002' },
      { name: 'Crossing Up 60% · Will the Fed cut in June? · every 30m (2)', value: '0193aaaa-1111-7000-8000-000000000003' },
    ]);
    const [long] = alertChoices([sub('x', { marketQuestion: 'W'.repeat(200) })]);
    expect(long!.name.length).toBeLessThanOrEqual(100);
    expect(long!.name).toMatch(/^Crossing Up 60% · W+… · every 30m$/);
  });

  it('say the extension types by their parameters', () => {
    const typed = (type: string, params: object) => sub(type, { subscriptionTypeConfig: { type, config: { params } }, rule: { type } } as Partial<SubscriptionView>);
    const names = alertChoices([
      typed('Moves Up By', { threshold_percent: 10, window: '1h' }),
      typed('Large Trade', { min_usd: 25000, side: 'BUY' }),
      typed('Volume Spike', { multiple: 3 }),
      typed('Closing Soon', { hours_before: 24 }),
      typed('Resolution', {}),
    ]).map((c) => c.name.split(' · ')[0]);
    expect(names).toEqual(['Moves Up By 10 pts in 1h', 'Large Trade $25,000 BUY', 'Volume Spike 3×', 'Closing Soon 24h', 'Resolution']);
  });
});

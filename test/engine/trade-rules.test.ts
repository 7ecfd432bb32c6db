import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LargeTradeRules } from '../../src/engine/large-trades.js';
import { tradeUsd, type LargeTradeRule, type Trade, type VolumeSpikeRule } from '../../src/engine/trade-rules.js';
import { MinuteVolume, VolumeSpikeRules } from '../../src/engine/volume-spikes.js';

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const HOUR = 60 * MIN;

function large(ruleId: number, minUsd: number, o: Partial<LargeTradeRule> = {}): LargeTradeRule {
  return {
    ruleId, subscriptionId: `s${ruleId}`, marketId: 'm', token: 't', type: 'Large Trade', minUsd, side: null,
    oneTime: false, intervalMs: 0, expiresAtMs: null, ...o,
  };
}

function spike(ruleId: number, multiple: number, o: Partial<VolumeSpikeRule> = {}): VolumeSpikeRule {
  return {
    ruleId, subscriptionId: `v${ruleId}`, marketId: 'm', token: 't', type: 'Volume Spike', multiple,
    oneTime: false, intervalMs: 0, expiresAtMs: null, ...o,
  };
}

const trade = (price: number, size: number, side: Trade['side'] = 'BUY', transactionHash: string | null = null): Trade => ({ price, size, side, transactionHash });
const ids = (firings: readonly { ruleId: number }[]) => firings.map((f) => f.ruleId).sort((a, b) => a - b);

describe('Large Trade rules', () => {
  it('fire on a trade whose size × price reaches min_usd: $24,999 does not fire a $25,000 rule, $25,000 does', () => {
    const rules = new LargeTradeRules();
    rules.add(large(1, 25_000), T0);
    expect(rules.trade('t', trade(0.5, 49_998), T0)).toEqual([]);
    const [f] = rules.trade('t', trade(0.5, 50_000, 'SELL', '0xabc'), T0 + 1);
    expect(f).toEqual({
      ruleId: 1, subscriptionId: 's1', marketId: 'm', token: 't', ruleType: 'Large Trade', previousPrice: null, price: 0.5, atMs: T0 + 1,
      details: { tradePrice: 0.5, tradeSize: 50_000, tradeSide: 'SELL', tradeUsd: 25_000, transactionHash: '0xabc' },
    });
  });

  it('values a trade to the cent, as the message shows it', () => {
    const rules = new LargeTradeRules();
    rules.add(large(1, 25_000), T0);
    // 0.62 × 40322.58 = 24999.9996: $25,000.00.
    expect(rules.trade('t', trade(0.62, 40_322.58), T0)[0]?.details).toMatchObject({ tradeUsd: 25_000 });
    expect(rules.trade('t', trade(0.62, 40_322.5), T0)).toEqual([]);
  });

  it('fire the prefix of rules a trade reaches, and only rules of its side or of no side', () => {
    const rules = new LargeTradeRules();
    rules.add(large(1, 1000), T0);
    rules.add(large(2, 5000, { side: 'BUY' }), T0);
    rules.add(large(3, 500, { side: 'SELL' }), T0);
    rules.add(large(4, 20_000), T0);
    rules.add(large(5, 100, { token: 'other' }), T0);
    expect(ids(rules.trade('t', trade(0.5, 12_000, 'BUY'), T0))).toEqual([1, 2]);
    expect(ids(rules.trade('t', trade(0.5, 12_000, 'SELL'), T0))).toEqual([1, 3]);
    // A trade the venue sent without a side fires only rules that ask for none.
    expect(ids(rules.trade('t', trade(0.5, 12_000, null), T0))).toEqual([1]);
    expect(ids(rules.trade('t', trade(0.5, 40_000, 'BUY'), T0))).toEqual([1, 2, 4]);
  });

  it('One Time fires once; Recurring waits out its interval; expired and removed rules never fire', () => {
    const rules = new LargeTradeRules();
    rules.add(large(1, 100, { oneTime: true }), T0);
    rules.add(large(2, 100, { intervalMs: 5 * MIN }), T0);
    rules.add(large(3, 100, { expiresAtMs: T0 + MIN }), T0);
    rules.add(large(4, 100), T0);
    rules.remove(4);
    expect(ids(rules.trade('t', trade(0.5, 1000), T0))).toEqual([1, 2, 3]);
    expect(ids(rules.trade('t', trade(0.5, 1000), T0 + MIN))).toEqual([]);
    expect(ids(rules.trade('t', trade(0.5, 1000), T0 + 5 * MIN))).toEqual([2]);
    expect(rules.size).toBe(3);
  });

  it('removes a One Time rule that fired after the other rules of its token are gone', () => {
    const rules = new LargeTradeRules();
    rules.add(large(1, 100, { oneTime: true }), T0);
    rules.add(large(2, 100), T0);
    expect(ids(rules.trade('t', trade(0.5, 1000), T0))).toEqual([1, 2]);
    rules.remove(2);
    rules.remove(1);
    expect(rules.size).toBe(0);
    expect(rules.watches('t')).toBe(false);
    rules.add(large(1, 100), T0);
    expect(ids(rules.trade('t', trade(0.5, 1000), T0))).toEqual([1]);
  });

  it('a rule loaded with a recent firing keeps its Recurring pause', () => {
    const rules = new LargeTradeRules();
    rules.add(large(1, 100, { intervalMs: 30 * MIN, lastFiredAtMs: T0 - 10 * MIN }), T0);
    expect(rules.trade('t', trade(0.5, 1000), T0)).toEqual([]);
    expect(ids(rules.trade('t', trade(0.5, 1000), T0 + 20 * MIN))).toEqual([1]);
  });

  it('ignores trades of tokens no rule watches and trades worth nothing', () => {
    const rules = new LargeTradeRules();
    rules.add(large(1, 1), T0);
    expect(rules.watches('t')).toBe(true);
    expect(rules.watches('x')).toBe(false);
    expect(rules.trade('x', trade(0.5, 1000), T0)).toEqual([]);
    expect(rules.trade('t', trade(0.5, 0), T0)).toEqual([]);
    expect(rules.trade('t', trade(Number.NaN, 10), T0)).toEqual([]);
  });
});

describe('Large Trade rules against a plain scan', () => {
  it('fire exactly the rules a scan of every rule finds, through adds, removes, pauses and One Time ends', () => {
    const side = fc.constantFrom<Trade['side']>('BUY', 'SELL', null);
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), id: fc.integer({ min: 0, max: 15 }), minUsd: fc.integer({ min: 1, max: 60 }).map((n) => n * 50),
        side, oneTime: fc.boolean(), intervalMs: fc.constantFrom(0, MIN, 5 * MIN), token: fc.constantFrom('t', 'u') }),
      fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 0, max: 15 }) }),
      fc.record({ kind: fc.constant('trade' as const), token: fc.constantFrom('t', 'u', 'x'), usd: fc.integer({ min: 0, max: 3200 }), side,
        advanceMs: fc.constantFrom(0, 1000, MIN, 3 * MIN) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const rules = new LargeTradeRules();
        // The reference: every rule looked at on every trade.
        const plain = new Map<number, LargeTradeRule & { pausedUntil: number; done: boolean }>();
        let now = T0;
        for (const o of ops) {
          if (o.kind === 'add') {
            const rule = large(o.id, o.minUsd, { side: o.side, oneTime: o.oneTime, intervalMs: o.intervalMs, token: o.token });
            rules.add(rule, now);
            plain.set(o.id, { ...rule, pausedUntil: -Infinity, done: false });
          } else if (o.kind === 'remove') {
            rules.remove(o.id);
            plain.delete(o.id);
          } else {
            now += o.advanceMs;
            const t = trade(0.5, o.usd * 2, o.side);
            const got = ids(rules.trade(o.token, t, now));
            const want: number[] = [];
            for (const r of plain.values()) {
              if (r.token !== o.token || r.done || now < r.pausedUntil || tradeUsd(t) <= 0 || tradeUsd(t) < r.minUsd) continue;
              if (r.side !== null && r.side !== o.side) continue;
              want.push(r.ruleId);
              if (r.oneTime) r.done = true;
              else if (r.intervalMs > 0) r.pausedUntil = now + r.intervalMs;
            }
            expect(got).toEqual(want.sort((a, b) => a - b));
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('Volume Spike rules against a plain recount', () => {
  it('fire exactly when a recount of the hour from every trade says so, through adds, removes, pauses and spikes', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), id: fc.integer({ min: 0, max: 7 }), multiple: fc.constantFrom(1.5, 2, 2.5, 3, 5),
        oneTime: fc.boolean(), intervalMs: fc.constantFrom(0, 5 * MIN, 30 * MIN) }),
      fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 0, max: 7 }) }),
      fc.record({ kind: fc.constant('trade' as const), usd: fc.integer({ min: 1, max: 200 }), advanceMs: fc.constantFrom(0, 10_000, MIN, 7 * MIN, 25 * MIN) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        // Catalog volume24hr 2,400: $100 an hour (the ops stay well within 25 hours).
        const r = new VolumeSpikeRules();
        const plain = new Map<number, VolumeSpikeRule & { pausedUntil: number; done: boolean; spent: boolean }>();
        const trades: { minute: number; usd: number }[] = [];
        let now = T0;
        for (const o of ops) {
          if (o.kind === 'add') {
            const rule = spike(o.id, o.multiple, { oneTime: o.oneTime, intervalMs: o.intervalMs });
            r.add(rule, 2400, now);
            plain.set(o.id, { ...rule, pausedUntil: -Infinity, done: false, spent: false });
            r.prune();
          } else if (o.kind === 'remove') {
            r.remove(o.id);
            plain.delete(o.id);
            r.prune();
            // The engine forgets the market's minutes with its last rule.
            if (plain.size === 0) trades.length = 0;
          } else {
            now += o.advanceMs;
            const got = ids(r.trade('t', trade(0.5, o.usd * 2), now));
            if (plain.size === 0) {
              expect(got).toEqual([]);
              continue;
            }
            const minute = Math.floor(now / MIN);
            const before = trades.filter((t) => t.minute > minute - 60).reduce((sum, t) => sum + t.usd, 0);
            trades.push({ minute, usd: o.usd });
            const r0 = before / 100;
            const r1 = (before + o.usd) / 100;
            const want: number[] = [];
            for (const rule of plain.values()) {
              if (rule.multiple > r0) rule.spent = false;
              if (rule.multiple > r1 || rule.spent || rule.done || now < rule.pausedUntil) continue;
              want.push(rule.ruleId);
              rule.spent = true;
              if (rule.oneTime) rule.done = true;
              else if (rule.intervalMs > 0) rule.pausedUntil = now + rule.intervalMs;
            }
            expect(got).toEqual(want.sort((a, b) => a - b));
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('MinuteVolume', () => {
  it('keeps the last hour and the 24 hours before it, against a plain sum of the trades', () => {
    const v = new MinuteVolume(T0);
    const trades: [number, number][] = [];
    let at = T0;
    let seed = 7;
    const rand = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    for (let i = 0; i < 3000; i++) {
      at += Math.floor(rand() * 3 * MIN);
      const usd = Math.round(rand() * 10_000) / 100;
      v.advance(at);
      v.add(usd);
      trades.push([at, usd]);
      if (i % 97 === 0) {
        const minute = Math.floor(at / MIN);
        const hour = trades.filter(([t]) => Math.floor(t / MIN) > minute - 60).reduce((s, [, u]) => s + u, 0);
        const base = trades.filter(([t]) => Math.floor(t / MIN) <= minute - 60 && Math.floor(t / MIN) > minute - 1500).reduce((s, [, u]) => s + u, 0);
        expect(v.hour).toBeCloseTo(hour, 6);
        expect(v.ownHourlyBaseline).toBeCloseTo(base / 24, 6);
      }
    }
  });

  it('has a baseline of its own once it saw the 24 hours before the last hour', () => {
    const v = new MinuteVolume(T0);
    v.advance(T0 + 25 * HOUR - 2 * MIN);
    expect(v.hasOwnBaseline).toBe(false);
    v.advance(T0 + 25 * HOUR);
    expect(v.hasOwnBaseline).toBe(true);
  });

  it('forgets everything after a gap longer than it keeps', () => {
    const v = new MinuteVolume(T0);
    v.add(100);
    v.advance(T0 + 30 * HOUR);
    expect(v.hour).toBe(0);
    expect(v.ownHourlyBaseline).toBe(0);
  });
});

describe('Volume Spike rules', () => {
  // Catalog volume24hr 24,000: a baseline of $1,000 an hour.
  const setup = (...rules: VolumeSpikeRule[]) => {
    const r = new VolumeSpikeRules();
    for (const rule of rules) r.add(rule, 24_000, T0);
    return r;
  };

  it('fires when the hour reaches multiple × the catalog hourly average, not below', () => {
    const r = setup(spike(1, 2));
    expect(r.trade('t', trade(0.5, 3998), T0)).toEqual([]); // $1,999
    const [f] = r.trade('t', trade(0.5, 2), T0 + MIN); // $2,000
    expect(f).toMatchObject({
      ruleId: 1, ruleType: 'Volume Spike', price: 0.5, previousPrice: null,
      details: { hourVolumeUsd: 2000, baselineHourlyUsd: 1000, baselineSource: 'catalog', volumeMultiple: 2 },
    });
  });

  it('a Recurring rule fires again only after the ratio fell back under its multiple, and after its interval', () => {
    const r = setup(spike(1, 2, { intervalMs: 5 * MIN }));
    expect(r.trade('t', trade(0.5, 5000), T0)).toHaveLength(1); // 2.5×
    expect(r.trade('t', trade(0.5, 5000), T0 + 10 * MIN)).toEqual([]); // 5×, still the same spike
    // An hour later the first trades left the window: 0 before this one, 2.5× after it.
    expect(r.trade('t', trade(0.5, 5000), T0 + 71 * MIN)).toHaveLength(1);
  });

  it('a ratio seen under the multiple at any trade ends the spike, even when the baseline then falls', () => {
    const r = setup(spike(1, 2));
    expect(r.trade('t', trade(0.5, 5000), T0)).toHaveLength(1); // $2,500: 2.5×
    r.setCatalogVolume('t', 48_000); // $2,000 an hour: 1.25×
    expect(r.trade('t', trade(0.5, 2), T0 + MIN)).toEqual([]); // seen under 2×
    r.setCatalogVolume('t', 24_000); // back to $1,000: 2.5× without a trade
    expect(r.trade('t', trade(0.5, 2), T0 + 2 * MIN)).toHaveLength(1);
  });

  it('a Recurring rule in its pause when the spike begins reports it at the first trade after the pause', () => {
    const r = setup(spike(1, 2, { intervalMs: 30 * MIN, lastFiredAtMs: T0 - 20 * MIN }));
    expect(r.trade('t', trade(0.5, 5000), T0)).toEqual([]);
    expect(r.trade('t', trade(0.5, 10), T0 + 11 * MIN)).toHaveLength(1);
  });

  it('One Time fires once; rules fire in order of their multiple as the hour grows', () => {
    const r = setup(spike(1, 3, { oneTime: true }), spike(2, 1.5));
    expect(ids(r.trade('t', trade(0.5, 3000), T0))).toEqual([2]);
    expect(ids(r.trade('t', trade(0.5, 3000), T0))).toEqual([1]);
    expect(r.trade('t', trade(0.5, 100_000), T0 + 2 * HOUR)).toEqual([2].map(() => expect.objectContaining({ ruleId: 2 })));
  });

  it('never fires on a zero baseline', () => {
    const r = new VolumeSpikeRules();
    r.add(spike(1, 1.5), 0, T0);
    expect(r.trade('t', trade(0.5, 1_000_000), T0)).toEqual([]);
  });

  it('follows the catalog baseline as it changes, then its own after 25 hours of feed', () => {
    const r = setup(spike(1, 2));
    r.setCatalogVolume('t', 48_000); // $2,000 an hour
    expect(r.trade('t', trade(0.5, 6000), T0)).toEqual([]); // $3,000: 1.5×
    // $100 every hour for a day: the feed's own average is $100 an hour.
    for (let h = 1; h <= 25; h++) expect(r.trade('t', trade(0.5, 200), T0 + h * HOUR)).toEqual([]);
    const [f] = r.trade('t', trade(0.5, 200), T0 + 25 * HOUR + 30 * MIN);
    expect(f?.details).toMatchObject({ baselineSource: 'feed', baselineHourlyUsd: 100, hourVolumeUsd: 200, volumeMultiple: 2 });
  });

  it('keeps the volume seen across a reload of the rules, and forgets it with the last rule', () => {
    const r = setup(spike(1, 2));
    r.trade('t', trade(0.5, 3000), T0); // $1,500
    r.remove(1);
    r.add(spike(1, 2), 24_000, T0);
    r.prune();
    expect(r.trade('t', trade(0.5, 1000), T0)).toHaveLength(1); // $2,000
    r.remove(1);
    r.prune();
    expect(r.watches('t')).toBe(false);
    r.add(spike(1, 2), 24_000, T0);
    expect(r.trade('t', trade(0.5, 1000), T0)).toEqual([]);
  });
});

import { VOLUME_SPIKE_TYPE } from '../domain/enums.js';
import { NO_FIRINGS, type Firing } from './rules.js';
import { FiringGate, tradeUsd, type Trade, type VolumeSpikeRule } from './trade-rules.js';

const MINUTE_MS = 60_000;
const HOUR_MINUTES = 60;
const BASELINE_MINUTES = 24 * 60;
/** The last hour and the 24 hours before it: the buckets one token keeps. */
const KEPT_MINUTES = HOUR_MINUTES + BASELINE_MINUTES;

export type BaselineSource = 'catalog' | 'feed';

/**
 * A market's traded volume (USD) seen on the feed, in per-minute buckets over the last 25 hours: a
 * ring of 1,500 minutes with two running sums, the last hour and the 24 hours before it. A trade
 * adds to one bucket; time moving on moves each minute from one sum to the other once, so a trade
 * costs O(1) amortized whatever the trading rate.
 */
export class MinuteVolume {
  private readonly buckets = new Float64Array(KEPT_MINUTES);
  /** The minute (ms / 60,000) the newest bucket is for. */
  private minute: number;
  /** The first minute this service saw the feed of this market: the own baseline needs 24 h after the hour before it. */
  private readonly firstMinute: number;
  private hourSum = 0;
  private baselineSum = 0;

  constructor(nowMs: number) {
    this.minute = Math.floor(nowMs / MINUTE_MS);
    this.firstMinute = this.minute;
  }

  /** Moves the window to now. */
  advance(nowMs: number): void {
    const target = Math.floor(nowMs / MINUTE_MS);
    if (target <= this.minute) return;
    if (target - this.minute >= KEPT_MINUTES) {
      this.buckets.fill(0);
      this.hourSum = 0;
      this.baselineSum = 0;
      this.minute = target;
      return;
    }
    while (this.minute < target) {
      const m = ++this.minute;
      const slot = m % KEPT_MINUTES;
      // The minute 25 h back leaves the baseline; the minute an hour back moves from the hour to it.
      this.baselineSum -= this.buckets[slot]!;
      this.buckets[slot] = 0;
      const leaving = this.buckets[(m - HOUR_MINUTES) % KEPT_MINUTES]!;
      this.hourSum -= leaving;
      this.baselineSum += leaving;
    }
    // Subtractions of doubles leave dust, never a real negative volume.
    if (this.hourSum < 1e-6) this.hourSum = Math.max(0, this.hourSum);
    if (this.baselineSum < 1e-6) this.baselineSum = Math.max(0, this.baselineSum);
  }

  add(usd: number): void {
    this.buckets[this.minute % KEPT_MINUTES]! += usd;
    this.hourSum += usd;
  }

  /** Volume of the last 60 minutes (this one included). */
  get hour(): number {
    return this.hourSum;
  }

  /** Whether the 24 hours before the last hour were all seen by this service. */
  get hasOwnBaseline(): boolean {
    return this.minute - this.firstMinute >= KEPT_MINUTES - 1;
  }

  /** Hourly average over the 24 hours before the last hour. */
  get ownHourlyBaseline(): number {
    return this.baselineSum / 24;
  }
}

interface TokenVolume {
  volume: MinuteVolume;
  /** The catalog's `volume24hr` of the market, the baseline until the feed gave 24 hours. */
  catalogVolume24hr: number;
  /** Sorted by `multiple`. */
  rules: VolumeSpikeRule[];
  dirty: boolean;
  /** Rules that fired on the current spike and have not seen the ratio under their multiple since. */
  spent: Set<VolumeSpikeRule>;
}

/**
 * `Volume Spike` rules: a market's last-hour volume against `multiple` × its hourly average over
 * the 24 hours before (docs/triggers.md "Volume spike"). Evaluated at each trade of the market. A
 * rule fires when the ratio reaches its multiple and then waits for the ratio to fall under it
 * again (seen at a later trade) before it can fire again, besides its Recurring pause: one spike,
 * one message.
 */
export class VolumeSpikeRules {
  private readonly byToken = new Map<string, TokenVolume>();
  private readonly byId = new Map<number, VolumeSpikeRule>();
  private readonly gate = new FiringGate();

  get size(): number {
    return this.byId.size;
  }

  watches(token: string): boolean {
    return (this.byToken.get(token)?.rules.length ?? 0) > 0;
  }

  /** Tokens watched, with their markets (for refreshing the catalog baseline). */
  markets(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [token, tv] of this.byToken) if (tv.rules[0]) out.set(tv.rules[0].marketId, token);
    return out;
  }

  /** Adds a rule (replacing one with the same id); `catalogVolume24hr` is its market's, as the catalog has it now. */
  add(rule: VolumeSpikeRule, catalogVolume24hr: number, nowMs: number): void {
    this.remove(rule.ruleId);
    this.byId.set(rule.ruleId, rule);
    this.gate.reset(rule, nowMs);
    let tv = this.byToken.get(rule.token);
    if (!tv) {
      tv = { volume: new MinuteVolume(nowMs), catalogVolume24hr, rules: [], dirty: false, spent: new Set() };
      this.byToken.set(rule.token, tv);
    }
    tv.catalogVolume24hr = catalogVolume24hr;
    tv.rules.push(rule);
    tv.dirty = true;
  }

  remove(ruleId: number): void {
    const rule = this.byId.get(ruleId);
    if (!rule) return;
    this.byId.delete(ruleId);
    this.gate.forget(ruleId);
    const tv = this.byToken.get(rule.token)!;
    tv.spent.delete(rule);
    const at = tv.rules.indexOf(rule);
    if (at >= 0) tv.rules.splice(at, 1);
    // The minutes seen stay until `prune`: a reload removes and adds a token's rules again.
  }

  /** Forgets the volume of tokens no rule watches any more (after a reload). */
  prune(): void {
    for (const [token, tv] of this.byToken) if (tv.rules.length === 0) this.byToken.delete(token);
  }

  /** Whether the rule fired on the current spike and waits for the ratio to fall under its multiple. */
  isSpent(ruleId: number): boolean {
    const rule = this.byId.get(ruleId);
    return rule !== undefined && (this.byToken.get(rule.token)?.spent.has(rule) ?? false);
  }

  /** Restores that wait for a reloaded rule (a reload must not report a spike in progress again). */
  markSpent(ruleId: number): void {
    const rule = this.byId.get(ruleId);
    if (rule) this.byToken.get(rule.token)?.spent.add(rule);
  }

  /** The catalog's newer `volume24hr` of a watched token's market. */
  setCatalogVolume(token: string, volume24hr: number): void {
    const tv = this.byToken.get(token);
    if (tv && Number.isFinite(volume24hr)) tv.catalogVolume24hr = volume24hr;
  }

  /** Adds a trade to the token's volume; the firings of the rules whose multiple the hour reached. */
  trade(token: string, trade: Trade, nowMs: number): readonly Firing[] {
    const tv = this.byToken.get(token);
    if (!tv) return NO_FIRINGS;
    const usd = tradeUsd(trade);
    if (!Number.isFinite(usd) || usd <= 0) return NO_FIRINGS;
    tv.volume.advance(nowMs);
    const { baselineHourlyUsd, baselineSource } = baselineOf(tv);
    const before = tv.volume.hour;
    tv.volume.add(usd);
    // No baseline, no ratio: a market that traded nothing in the previous day is not "spiking" on its first trade.
    if (!(baselineHourlyUsd > 0)) return NO_FIRINGS;
    const after = tv.volume.hour;
    const r0 = before / baselineHourlyUsd;
    const r1 = after / baselineHourlyUsd;
    if (tv.dirty) {
      tv.rules.sort((a, b) => a.multiple - b.multiple);
      tv.dirty = false;
    }
    // Below its multiple before this trade: the ratio fell back under it since the rule fired (the
    // few rules of the spike going on, not every rule).
    for (const rule of tv.spent) if (rule.multiple > r0) tv.spent.delete(rule);
    let out: Firing[] | undefined;
    for (const rule of tv.rules) {
      if (rule.multiple > r1) break;
      if (tv.spent.has(rule) || !this.gate.open(rule, nowMs)) continue;
      this.gate.fired(rule, nowMs);
      tv.spent.add(rule);
      (out ??= []).push({
        ruleId: rule.ruleId,
        subscriptionId: rule.subscriptionId,
        marketId: rule.marketId,
        token: rule.token,
        ruleType: VOLUME_SPIKE_TYPE,
        previousPrice: null,
        price: trade.price,
        atMs: nowMs,
        details: {
          hourVolumeUsd: cents(after),
          baselineHourlyUsd: cents(baselineHourlyUsd),
          baselineSource,
          volumeMultiple: Math.round(r1 * 100) / 100,
        },
      });
    }
    return out ?? NO_FIRINGS;
  }
}

const cents = (usd: number) => Math.round(usd * 100) / 100;

function baselineOf(tv: TokenVolume): { baselineHourlyUsd: number; baselineSource: BaselineSource } {
  return tv.volume.hasOwnBaseline
    ? { baselineHourlyUsd: tv.volume.ownHourlyBaseline, baselineSource: 'feed' }
    : { baselineHourlyUsd: Math.max(0, tv.catalogVolume24hr) / 24, baselineSource: 'catalog' };
}

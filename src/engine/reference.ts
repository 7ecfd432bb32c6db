import {
  CROSSING, CROSSING_DOWN, CROSSING_STEP, CROSSING_UP, GREATER_THAN, LESS_THAN,
  effectiveBand, initialPauseEnd, isLevelRule, pastRearmLevel, rearmLevel,
  type AlertEvaluator, type CompiledRule, type Firing, type RearmSide,
} from './rules.js';
import { allLevels } from './step-levels.js';
import { isMoveRuleType, type MoveRuleType, type PriceRuleType } from '../domain/enums.js';
import { moveFiring, moveKind, moveOf, validMove, windowMsOf, type WindowExtremes } from './move-rules.js';

/** A rule with its mutable state; a class so every rule shares one object shape. */
class ReferenceRule implements CompiledRule {
  readonly ruleId: number;
  readonly subscriptionId: string;
  readonly marketId: string;
  readonly token: string;
  readonly type: PriceRuleType;
  readonly threshold: number;
  readonly oneTime: boolean;
  readonly intervalMs: number;
  readonly expiresAtMs: number | null;
  enabled: boolean;
  /** End of the Recurring pause after the last firing; null when not paused. */
  pauseEnd: number | null;
  /** Re-arm band (fraction); 0 when the rule has none. */
  readonly band: number;
  /** Direction of the firing whose band the price has not gone back past; null when armed. */
  side: RearmSide | null;

  constructor(rule: CompiledRule, nowMs: number) {
    this.ruleId = rule.ruleId;
    this.subscriptionId = rule.subscriptionId;
    this.marketId = rule.marketId;
    this.token = rule.token;
    this.type = rule.type as PriceRuleType;
    this.threshold = rule.threshold;
    this.oneTime = rule.oneTime;
    this.intervalMs = rule.intervalMs;
    this.expiresAtMs = rule.expiresAtMs;
    this.enabled = rule.enabled;
    const pause = initialPauseEnd(rule, nowMs);
    this.pauseEnd = pause === -Infinity ? null : pause;
    this.band = effectiveBand(rule);
    this.side = this.band > 0 ? rule.rearmAfter ?? null : null;
  }

  /** The level the price must reach to re-arm the rule; only valid while `side` is set. */
  rearmAt(): number {
    return rearmLevel(this.threshold, this.band, this.side!);
  }
}

/** A window-move rule with its mutable state. */
class ReferenceMoveRule {
  readonly windowMs: number;
  enabled: boolean;
  pauseEnd: number;
  /** Fired (Recurring) and its move still holds: it may not fire again until the move drops below its threshold. */
  holding = false;

  constructor(readonly rule: CompiledRule, nowMs: number) {
    this.windowMs = validMove(rule) ? windowMsOf(rule) : NaN;
    this.enabled = rule.enabled;
    this.pauseEnd = initialPauseEnd(rule, nowMs);
    this.holding = rule.moveHolding === true && !rule.oneTime;
  }
}

/** Every price a token displayed since its window of one length began (the first rule of that length), in order. */
interface ReferenceWindow {
  samples: Array<{ atMs: number; price: number }>;
  rules: number;
}

/**
 * The obviously-correct evaluator the index is tested against: every call scans every rule.
 * tick = sweep (pauses that ended) then the rules of that token against (p0, p1).
 */
export class ReferenceEvaluator implements AlertEvaluator {
  private readonly rules: ReferenceRule[] = [];
  private readonly positions = new Map<number, number>();
  private readonly prices = new Map<string, number>();
  private readonly moves = new Map<number, ReferenceMoveRule>();
  /** By `${token} ${windowMs}`. */
  private readonly windows = new Map<string, ReferenceWindow>();

  add(rule: CompiledRule, nowMs: number): Firing[] {
    this.remove(rule.ruleId);
    if (isMoveRuleType(rule.type)) {
      const stored = new ReferenceMoveRule(rule, nowMs);
      this.moves.set(rule.ruleId, stored);
      if (stored.windowMs === stored.windowMs) {
        const key = `${rule.token} ${stored.windowMs}`;
        let window = this.windows.get(key);
        if (window === undefined) {
          // A new window starts with the price displayed now, when one is known.
          const price = this.prices.get(rule.token);
          window = { samples: price === undefined ? [] : [{ atMs: nowMs, price }], rules: 0 };
          this.windows.set(key, window);
        }
        window.rules++;
      }
      return [];
    }
    const stored = new ReferenceRule(rule, nowMs);
    this.positions.set(rule.ruleId, this.rules.length);
    this.rules.push(stored);
    // A restored band the known price is already past is passed.
    const price = this.prices.get(rule.token);
    if (stored.side !== null && price !== undefined && pastRearmLevel(price, stored.rearmAt(), stored.side)) stored.side = null;
    return this.checkLevelNow(stored, nowMs);
  }

  remove(ruleId: number): void {
    const move = this.moves.get(ruleId);
    if (move !== undefined) {
      this.moves.delete(ruleId);
      const window = this.windows.get(`${move.rule.token} ${move.windowMs}`);
      // A window keeps its prices until the token's price is forgotten, rules or not.
      if (window !== undefined) window.rules--;
      return;
    }
    const at = this.positions.get(ruleId);
    if (at === undefined) return;
    const last = this.rules[this.rules.length - 1];
    this.rules[at] = last;
    this.positions.set(last.ruleId, at);
    this.rules.length--;
    this.positions.delete(ruleId);
  }

  setEnabled(ruleId: number, enabled: boolean, nowMs: number): Firing[] {
    const move = this.moves.get(ruleId);
    if (move !== undefined) {
      if (move.enabled === enabled) return [];
      move.enabled = enabled;
      move.pauseEnd = -Infinity;
      move.holding = false;
      return [];
    }
    const at = this.positions.get(ruleId);
    if (at === undefined) return [];
    const rule = this.rules[at];
    if (rule.enabled === enabled) return [];
    rule.enabled = enabled;
    if (!enabled) return [];
    rule.pauseEnd = null;
    rule.side = null;
    return this.checkLevelNow(rule, nowMs);
  }

  tick(token: string, price: number, nowMs: number): Firing[] {
    if (!Number.isFinite(price)) return [];
    const firings = this.sweep(nowMs);
    const p0 = this.prices.get(token);
    this.prices.set(token, price);
    for (const rule of this.rules) {
      if (rule.token !== token) continue;
      if (rule.side !== null) {
        firings.push(...this.rearm(rule, p0, price, nowMs));
        continue;
      }
      if (!this.eligible(rule, nowMs)) continue;
      const levels = rule.type === CROSSING_STEP && p0 !== undefined ? crossed(rule.threshold, p0, price) : [];
      if (holds(rule, p0, price, levels)) {
        firings.push(this.fire(rule, p0 ?? null, price, levels, nowMs));
        if (rule.band > 0) rule.side = price > p0! ? 'up' : 'down';
      }
    }
    firings.push(...this.sampleMoves(token, price, nowMs));
    return firings;
  }

  /**
   * Window moves: the price enters every window of the token; then each move rule compares the move
   * over its window (the price now against the lowest, highest price displayed in it) with its
   * threshold. A Recurring rule that fired holds until its move drops below the threshold.
   */
  private sampleMoves(token: string, price: number, nowMs: number): Firing[] {
    const firings: Firing[] = [];
    const extremes = new Map<number, WindowExtremes>();
    for (const [key, window] of this.windows) {
      if (!key.startsWith(`${token} `)) continue;
      window.samples.push({ atMs: nowMs, price });
      const windowMs = Number(key.slice(token.length + 1));
      extremes.set(windowMs, windowExtremes(window.samples, nowMs - windowMs));
    }
    for (const move of this.moves.values()) {
      const rule = move.rule;
      if (rule.token !== token || !move.enabled || move.windowMs !== move.windowMs) continue;
      const w = extremes.get(move.windowMs)!;
      const kind = moveKind(rule.type as MoveRuleType);
      const amount = moveOf(kind, price, w);
      if (move.holding) {
        if (amount < rule.threshold) move.holding = false;
        continue;
      }
      const live = rule.expiresAtMs === null || nowMs < rule.expiresAtMs;
      if (!live || nowMs < move.pauseEnd || amount < rule.threshold) continue;
      firings.push(moveFiring(rule, kind, price, w, nowMs));
      if (rule.oneTime) move.enabled = false;
      else {
        if (rule.intervalMs > 0) move.pauseEnd = nowMs + rule.intervalMs;
        move.holding = true;
      }
    }
    return firings;
  }

  /**
   * A rule inside its band fires no crossing of its threshold. A price past the band re-arms it;
   * for Crossing (either direction) a move onto that price is the crossing back, which fires and
   * starts the band on the other side.
   */
  private rearm(rule: ReferenceRule, p0: number | undefined, price: number, nowMs: number): Firing[] {
    const side = rule.side!;
    const level = rule.rearmAt();
    if (!pastRearmLevel(price, level, side)) return [];
    if (rule.type === CROSSING && p0 !== undefined && !pastRearmLevel(p0, level, side) && this.eligible(rule, nowMs)) {
      rule.side = side === 'up' ? 'down' : 'up';
      return [this.fire(rule, p0, price, [], nowMs)];
    }
    rule.side = null;
    return [];
  }

  /** The price becomes the crossing reference; no crossing fires, level rules that hold do. */
  setPrice(token: string, price: number, nowMs: number): Firing[] {
    if (!Number.isFinite(price)) return [];
    const firings = this.sweep(nowMs);
    this.prices.set(token, price);
    for (const rule of this.rules) {
      if (rule.token === token && rule.side !== null) this.rearm(rule, undefined, price, nowMs);
      if (rule.token !== token || !isLevelRule(rule.type) || !this.eligible(rule, nowMs)) continue;
      if (holds(rule, undefined, price, [])) firings.push(this.fire(rule, null, price, [], nowMs));
    }
    firings.push(...this.sampleMoves(token, price, nowMs));
    return firings;
  }

  /** Replaces a rule's band state, as `CompiledRule.rearmAfter` does on add. */
  restoreBand(ruleId: number, side: RearmSide | null): void {
    const at = this.positions.get(ruleId);
    if (at === undefined || this.rules[at].band === 0) return;
    const rule = this.rules[at];
    rule.side = side;
    const price = this.prices.get(rule.token);
    if (side !== null && price !== undefined && pastRearmLevel(price, rule.rearmAt(), side)) rule.side = null;
  }

  forgetPrice(token: string): void {
    this.prices.delete(token);
    for (const [key, window] of this.windows) {
      if (!key.startsWith(`${token} `)) continue;
      if (window.rules > 0) window.samples = [];
      else this.windows.delete(key);
    }
  }

  /** Level rules whose Recurring pause has ended fire now if they still hold at the last price. */
  sweep(nowMs: number): Firing[] {
    const firings: Firing[] = [];
    for (const rule of this.rules) {
      if (!isLevelRule(rule.type) || rule.pauseEnd === null || nowMs < rule.pauseEnd) continue;
      rule.pauseEnd = null;
      firings.push(...this.checkLevelNow(rule, nowMs));
    }
    return firings;
  }

  lastPrice(token: string): number | undefined {
    return this.prices.get(token);
  }

  private checkLevelNow(rule: ReferenceRule, nowMs: number): Firing[] {
    const price = this.prices.get(rule.token);
    if (!isLevelRule(rule.type) || price === undefined || !this.eligible(rule, nowMs)) return [];
    return holds(rule, undefined, price, []) ? [this.fire(rule, null, price, [], nowMs)] : [];
  }

  private eligible(rule: ReferenceRule, nowMs: number): boolean {
    return (
      rule.enabled &&
      Number.isFinite(rule.threshold) &&
      (rule.expiresAtMs === null || nowMs < rule.expiresAtMs) &&
      (rule.pauseEnd === null || nowMs >= rule.pauseEnd)
    );
  }

  private fire(rule: ReferenceRule, p0: number | null, p1: number, levels: number[], nowMs: number): Firing {
    if (rule.oneTime) rule.enabled = false;
    else if (rule.intervalMs > 0) rule.pauseEnd = nowMs + rule.intervalMs;
    const firing: Firing = {
      ruleId: rule.ruleId, subscriptionId: rule.subscriptionId, marketId: rule.marketId, token: rule.token,
      ruleType: rule.type, previousPrice: p0, price: p1, atMs: nowMs,
    };
    if (rule.type === CROSSING_STEP) firing.levels = levels;
    return firing;
  }
}

/**
 * The lowest and highest price displayed at some moment after `cutoffMs` (a price is displayed
 * until the next one arrives), each with the last moment it was displayed. Of equal extremes, the latest.
 */
function windowExtremes(samples: ReadonlyArray<{ atMs: number; price: number }>, cutoffMs: number): WindowExtremes {
  const w: WindowExtremes = { low: Infinity, lowAtMs: NaN, high: -Infinity, highAtMs: NaN };
  for (let i = 0; i < samples.length; i++) {
    const until = i + 1 < samples.length ? samples[i + 1].atMs : Infinity;
    if (until <= cutoffMs) continue;
    const { price } = samples[i];
    if (price <= w.low) {
      w.low = price;
      w.lowAtMs = until;
    }
    if (price >= w.high) {
      w.high = price;
      w.highAtMs = until;
    }
  }
  return w;
}

function crossed(step: number, p0: number, p1: number): number[] {
  const levels = allLevels(step);
  if (p1 > p0) return levels.filter((level) => p0 < level && level <= p1);
  return levels.filter((level) => p1 <= level && level < p0).reverse();
}

function holds(rule: ReferenceRule, p0: number | undefined, p1: number, levels: number[]): boolean {
  const t = rule.threshold;
  switch (rule.type) {
    case CROSSING_UP: return p0 !== undefined && p0 < t && t <= p1;
    case CROSSING_DOWN: return p0 !== undefined && p0 > t && t >= p1;
    case CROSSING: return p0 !== undefined && ((p0 < t && t <= p1) || (p0 > t && t >= p1));
    case CROSSING_STEP: return levels.length > 0;
    case GREATER_THAN: return p1 > t;
    case LESS_THAN: return p1 < t;
  }
}

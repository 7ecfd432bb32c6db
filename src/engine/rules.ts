import { PRICE_RULE_TYPES, type PriceRuleType } from '../domain/enums.js';

// Named handles on the spec's strings, so the engine never spells them again.
export const [CROSSING, CROSSING_UP, CROSSING_DOWN, CROSSING_STEP, GREATER_THAN, LESS_THAN] =
  PRICE_RULE_TYPES;

/** One price rule of one subscription on one market (Event and Watchlist scopes expand to many). */
export interface CompiledRule {
  /** Dense internal id chosen by the caller; reuse freed ids to keep the index compact. */
  ruleId: number;
  subscriptionId: string;
  marketId: string;
  /** The market's first outcome ("Yes") token. */
  token: string;
  type: PriceRuleType;
  /** Fraction 0..1 (threshold_percent / 100, see `thresholdFraction`); the step for `Crossing Step`. */
  threshold: number;
  oneTime: boolean;
  /** Recurring pause after a firing; 0 means no pause. Ignored for One Time. */
  intervalMs: number;
  expiresAtMs: number | null;
  enabled: boolean;
  /** Restores a Recurring pause when rules are reloaded (e.g. at engine start). */
  lastFiredAtMs?: number | null;
}

export interface Firing {
  ruleId: number;
  subscriptionId: string;
  marketId: string;
  token: string;
  ruleType: PriceRuleType;
  /** Null when no price move caused the firing: rule added or restarted, or a pause ended. */
  previousPrice: number | null;
  price: number;
  /** Crossing Step only: the levels crossed, in the order the price crossed them. */
  levels?: readonly number[];
  atMs: number;
}

/** The API shared by the index and the reference evaluator. Times are ms, passed in. */
export interface AlertEvaluator {
  add(rule: CompiledRule, nowMs: number): readonly Firing[];
  remove(ruleId: number): void;
  setEnabled(ruleId: number, enabled: boolean, nowMs: number): readonly Firing[];
  tick(token: string, price: number, nowMs: number): readonly Firing[];
  /** Sets the token's price without firing crossings (level rules that hold fire). */
  setPrice(token: string, price: number, nowMs: number): readonly Firing[];
  /** Forgets the token's price: the next one only sets the reference. */
  forgetPrice(token: string): void;
  sweep(nowMs: number): readonly Firing[];
  lastPrice(token: string): number | undefined;
}

export const NO_FIRINGS: readonly Firing[] = Object.freeze([]);

/** threshold_percent → fraction, rounded to 1e-9 so 30 gives exactly the double 0.3. */
export function thresholdFraction(thresholdPercent: number): number {
  return Math.round(thresholdPercent * 1e7) / 1e9;
}

export function isLevelRule(type: PriceRuleType): boolean {
  return type === GREATER_THAN || type === LESS_THAN;
}

/** When a rule loaded with a past firing is still in its Recurring pause; -Infinity if not. */
export function initialPauseEnd(rule: CompiledRule, nowMs: number): number {
  if (rule.oneTime || rule.intervalMs <= 0 || rule.lastFiredAtMs == null) return -Infinity;
  const end = rule.lastFiredAtMs + rule.intervalMs;
  return end > nowMs ? end : -Infinity;
}

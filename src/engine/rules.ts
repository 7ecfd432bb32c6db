import {
  PRICE_RULE_TYPES,
  type LARGE_TRADE_TYPE,
  type MoveRuleType,
  type MoveWindow,
  type PriceRuleType,
  type VOLUME_SPIKE_TYPE,
} from '../domain/enums.js';

/** The extension types whose firings carry a price and go out as a `price_notification`. */
export type FiringExtensionType = MoveRuleType | typeof LARGE_TRADE_TYPE | typeof VOLUME_SPIKE_TYPE;

// Named handles on the spec's strings, so the engine never spells them again.
export const [CROSSING, CROSSING_UP, CROSSING_DOWN, CROSSING_STEP, GREATER_THAN, LESS_THAN] =
  PRICE_RULE_TYPES;

/** What the rule index evaluates on every displayed price: the spec's price rules and the window moves. */
export type EngineRuleType = PriceRuleType | MoveRuleType;

/** One price rule of one subscription on one market (Event and Watchlist scopes expand to many). */
export interface CompiledRule {
  /** Dense internal id chosen by the caller; reuse freed ids to keep the index compact. */
  ruleId: number;
  subscriptionId: string;
  marketId: string;
  /** The market's first outcome ("Yes") token. */
  token: string;
  type: EngineRuleType;
  /** Fraction 0..1 (threshold_percent / 100, see `thresholdFraction`); the step for `Crossing Step`; the move for `Moves … By`. */
  threshold: number;
  /** `Moves … By` only: the window the move is measured over (docs/engine.md "Window moves"). */
  window?: MoveWindow;
  oneTime: boolean;
  /** Recurring pause after a firing; 0 means no pause. Ignored for One Time. */
  intervalMs: number;
  expiresAtMs: number | null;
  enabled: boolean;
  /** Restores a Recurring pause when rules are reloaded (e.g. at engine start). */
  lastFiredAtMs?: number | null;
  /**
   * Re-arm band, a fraction (`rearmPoints` / 100, see `thresholdFraction`): after a Crossing,
   * Crossing Up or Crossing Down firing at t the rule stays quiet until the price has gone back
   * past t by this much (docs/engine.md, "Re-arm bands"). 0 or absent: no band.
   */
  rearmBand?: number;
  /** Restores a band not yet passed when rules are reloaded: the direction of that firing. */
  rearmAfter?: RearmSide | null;
  /**
   * `Moves … By`, Recurring: restores, when rules are reloaded, that the rule fired and its move
   * still held (it waits for the move to drop below its threshold before it can fire again).
   */
  moveHolding?: boolean;
}

/** The direction of the firing whose re-arm band the price has not gone back past yet. */
export type RearmSide = 'up' | 'down';

export interface Firing {
  ruleId: number;
  subscriptionId: string;
  marketId: string;
  token: string;
  /** A spec price rule from the rule index; our extension types (docs/alerts.md) from their own evaluators. */
  ruleType: PriceRuleType | FiringExtensionType;
  /** Null when no price move caused the firing: rule added or restarted, or a pause ended. */
  previousPrice: number | null;
  price: number;
  /** Crossing Step only: the levels crossed, in the order the price crossed them. */
  levels?: readonly number[];
  atMs: number;
  /**
   * Extension types: what is specific to the trigger (the window's start, the trade, the volume),
   * sent under the payload's `detectionDetails` beside the spec's fields (src/http/webhook-payloads.ts).
   */
  details?: Readonly<Record<string, unknown>>;
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

/** Whether a rule of this type takes a re-arm band (Crossing Step and the level rules do not). */
export function takesRearmBand(type: string): boolean {
  return type === CROSSING || type === CROSSING_UP || type === CROSSING_DOWN;
}

/**
 * The band of a rule as the engine applies it: 0 when none, not finite, a type that takes none, or
 * One Time (which fires once anyway).
 */
export function effectiveBand(rule: Pick<CompiledRule, 'type' | 'rearmBand' | 'oneTime'>): number {
  const band = rule.rearmBand ?? 0;
  return takesRearmBand(rule.type) && !rule.oneTime && Number.isFinite(band) && band > 0 ? band : 0;
}

/**
 * The price at or past which a rule that fired `side` at t is re-armed: t − band after an upward
 * firing, t + band after a downward one, rounded to 1e-9 so 0.5 − 0.02 is exactly the double 0.48.
 */
export function rearmLevel(threshold: number, band: number, side: RearmSide): number {
  return Math.round((side === 'up' ? threshold - band : threshold + band) * 1e9) / 1e9;
}

/** Whether `price` has gone back past the re-arm level of a firing in direction `side`. */
export function pastRearmLevel(price: number, level: number, side: RearmSide): boolean {
  return side === 'up' ? price <= level : price >= level;
}

export function isLevelRule(type: string): boolean {
  return type === GREATER_THAN || type === LESS_THAN;
}

/** When a rule loaded with a past firing is still in its Recurring pause; -Infinity if not. */
export function initialPauseEnd(rule: CompiledRule, nowMs: number): number {
  if (rule.oneTime || rule.intervalMs <= 0 || rule.lastFiredAtMs == null) return -Infinity;
  const end = rule.lastFiredAtMs + rule.intervalMs;
  return end > nowMs ? end : -Infinity;
}

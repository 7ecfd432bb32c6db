import { RuleIndex } from './index.js';
import type { AlertEvaluator, CompiledRule, Firing } from './rules.js';
import type { PriceRuleType } from '../domain/enums.js';

export const REPLAY_STEP_MS = 60_000;

/** A recorded price: the token's displayed price at `atMs` (a minute sample, see price-samples.ts). */
export interface PricePoint {
  token: string;
  atMs: number;
  price: number;
}

/** One rule on several markets, as a subscription of that scope would compile it. */
export interface ReplayRule {
  type: PriceRuleType;
  /** Fraction 0..1 (see `thresholdFraction`); the step for Crossing Step. */
  threshold: number;
  oneTime: boolean;
  intervalMs: number;
  markets: readonly { marketId: string; token: string }[];
}

/**
 * The firings a rule created at `fromMs` would have produced over a recorded price path, by the
 * engine's own evaluator. Every token's first point only sets its crossing reference (level rules
 * that hold fire), as when a new rule starts following a token. Paused level rules are swept every
 * `stepMs` between points, as the engine's timer sweeps them. A One Time subscription disables itself
 * at its first firing on any of its markets, so the replay stops there. Firings at the same instant
 * are ordered by market id.
 */
export function replayRule(
  rule: ReplayRule,
  path: readonly PricePoint[],
  fromMs: number,
  toMs: number,
  evaluator: AlertEvaluator = new RuleIndex(),
  stepMs = REPLAY_STEP_MS,
): Firing[] {
  rule.markets.forEach((m, ruleId) => {
    const compiled: CompiledRule = {
      ruleId, subscriptionId: 'dry-run', marketId: m.marketId, token: m.token, type: rule.type,
      threshold: rule.threshold, oneTime: rule.oneTime, intervalMs: rule.intervalMs, expiresAtMs: null, enabled: true,
    };
    evaluator.add(compiled, fromMs);
  });
  const points = [...path].filter((p) => p.atMs >= fromMs && p.atMs <= toMs).sort((a, b) => a.atMs - b.atMs);
  const firings: Firing[] = [];
  // One Time: the first minute with a firing ends the replay (its firings are sorted below).
  const doneBefore = (t: number) => rule.oneTime && firings.length > 0 && t > firings[0]!.atMs;
  let i = 0;
  let sweepAt = points.length > 0 ? points[0]!.atMs : toMs + 1;
  for (;;) {
    const next = i < points.length ? points[i]!.atMs : Infinity;
    const t = Math.min(next, sweepAt);
    if (t > toMs || doneBefore(t)) break;
    if (sweepAt < next) {
      firings.push(...evaluator.sweep(sweepAt));
      sweepAt += stepMs;
      continue;
    }
    const point = points[i++]!;
    firings.push(...evaluator.tick(point.token, point.price, point.atMs));
    if (sweepAt === next) sweepAt += stepMs;
  }
  // Firings at the same instant have no order in the engine; list them by market.
  firings.sort((x, y) => x.atMs - y.atMs || (x.marketId < y.marketId ? -1 : x.marketId > y.marketId ? 1 : 0));
  return rule.oneTime ? firings.slice(0, 1) : firings;
}

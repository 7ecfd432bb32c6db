import { MOVE_RULE_TYPES, MOVE_WINDOW_MS, type MoveRuleType, type MoveWindow } from '../domain/enums.js';
import type { CompiledRule, Firing } from './rules.js';

// The definitions the window-move index (moves.ts) and the reference evaluator share, so both
// round, pick a direction and word a firing the same way (docs/engine.md "Window moves").

const [MOVES_UP_BY, MOVES_DOWN_BY] = MOVE_RULE_TYPES;

/** Which move a rule watches: the rise from the window's lowest price, the fall from its highest, or either. */
export const KIND_UP = 0;
export const KIND_DOWN = 1;
export const KIND_EITHER = 2;

export function moveKind(type: MoveRuleType): number {
  return type === MOVES_UP_BY ? KIND_UP : type === MOVES_DOWN_BY ? KIND_DOWN : KIND_EITHER;
}

/** A move rule's window in ms; NaN when the rule has none (it never fires). */
export function windowMsOf(rule: Pick<CompiledRule, 'window'>): number {
  return rule.window !== undefined && Object.hasOwn(MOVE_WINDOW_MS, rule.window) ? MOVE_WINDOW_MS[rule.window] : NaN;
}

/** Whether a move rule can ever fire: a window and a move strictly above 0. */
export function validMove(rule: Pick<CompiledRule, 'window' | 'threshold'>): boolean {
  return windowMsOf(rule) > 0 && Number.isFinite(rule.threshold) && rule.threshold > 0;
}

/**
 * a − b rounded to 1e-9, so 0.58 − 0.48 is exactly the 0.1 a 10-point rule compares with (the
 * thresholds are rounded the same way, see `thresholdFraction`).
 */
export function moveBetween(a: number, b: number): number {
  return Math.round((a - b) * 1e9) / 1e9;
}

/**
 * What a window says about the price now: its extremes and the last moment each was displayed
 * (when the next price replaced it; Infinity for the price displayed now).
 */
export interface WindowExtremes {
  low: number;
  lowAtMs: number;
  high: number;
  highAtMs: number;
}

/** The move a rule of `kind` compares with its threshold; up when both directions tie. */
export function moveOf(kind: number, price: number, w: WindowExtremes): number {
  const up = moveBetween(price, w.low);
  const down = moveBetween(w.high, price);
  return kind === KIND_UP ? up : kind === KIND_DOWN ? down : up >= down ? up : down;
}

/**
 * The firing of a move rule: `previousPrice` is the price the move is measured from, so the
 * message reads "48 % → 58 %"; `details` go to the payload's `detectionDetails`.
 */
export function moveFiring(
  rule: Pick<CompiledRule, 'ruleId' | 'subscriptionId' | 'marketId' | 'token' | 'type' | 'window'>,
  kind: number, price: number, w: WindowExtremes, nowMs: number,
): Firing {
  const rose = kind === KIND_UP || (kind === KIND_EITHER && moveBetween(price, w.low) >= moveBetween(w.high, price));
  const from = rose ? w.low : w.high;
  // The move started when the price left the extreme (a firing's extreme is never the price now).
  const fromMs = Math.min(rose ? w.lowAtMs : w.highAtMs, nowMs);
  return {
    ruleId: rule.ruleId, subscriptionId: rule.subscriptionId, marketId: rule.marketId, token: rule.token,
    ruleType: rule.type, previousPrice: from, price, atMs: nowMs,
    details: {
      window: rule.window as MoveWindow,
      windowStartValue: from,
      windowStartTimeMs: fromMs,
      movePoints: Math.round(moveBetween(price, from) * 1e11) / 1e9,
    },
  };
}

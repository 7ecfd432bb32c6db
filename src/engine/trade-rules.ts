import type { LARGE_TRADE_TYPE, TradeSide, VOLUME_SPIKE_TYPE } from '../domain/enums.js';

/** One trade off the venue feed (`last_trade_price`) of a market's first-outcome token. */
export interface Trade {
  price: number;
  /** Shares. */
  size: number;
  side: TradeSide | null;
  transactionHash: string | null;
}

interface TradeRuleBase {
  /** Dense id chosen by the caller (ids of the rule index and of the trade rules are separate). */
  ruleId: number;
  subscriptionId: string;
  marketId: string;
  /** The market's first outcome ("Yes") token: the trades counted are this token's. */
  token: string;
  oneTime: boolean;
  /** Recurring pause after a firing; 0 means no pause. Ignored for One Time. */
  intervalMs: number;
  expiresAtMs: number | null;
  /** Restores a Recurring pause when rules are reloaded. */
  lastFiredAtMs?: number | null;
}

export interface LargeTradeRule extends TradeRuleBase {
  type: typeof LARGE_TRADE_TYPE;
  minUsd: number;
  side: TradeSide | null;
}

export interface VolumeSpikeRule extends TradeRuleBase {
  type: typeof VOLUME_SPIKE_TYPE;
  multiple: number;
}

export type TradeRule = LargeTradeRule | VolumeSpikeRule;

/** A trade's value in USD, to the cent: 0.62 × 40322.58 is $25,000.00, as the message shows it. */
export const tradeUsd = (t: Pick<Trade, 'price' | 'size'>): number => Math.round(t.price * t.size * 100) / 100;

/** The bookkeeping of a rule's Recurring pause and One Time end, shared by both trade evaluators. */
export class FiringGate {
  private readonly pauseEnd = new Map<number, number>();
  private readonly done = new Set<number>();

  reset(rule: TradeRuleBase, nowMs: number): void {
    this.done.delete(rule.ruleId);
    const last = rule.lastFiredAtMs;
    if (!rule.oneTime && rule.intervalMs > 0 && last != null && last + rule.intervalMs > nowMs) this.pauseEnd.set(rule.ruleId, last + rule.intervalMs);
    else this.pauseEnd.delete(rule.ruleId);
  }

  forget(ruleId: number): void {
    this.pauseEnd.delete(ruleId);
    this.done.delete(ruleId);
  }

  /** Whether the rule may fire now: not fired (One Time), not expired, not in its pause. */
  open(rule: TradeRuleBase, nowMs: number): boolean {
    if (this.done.has(rule.ruleId)) return false;
    if (rule.expiresAtMs !== null && nowMs >= rule.expiresAtMs) return false;
    const end = this.pauseEnd.get(rule.ruleId);
    return end === undefined || nowMs >= end;
  }

  fired(rule: TradeRuleBase, nowMs: number): void {
    if (rule.oneTime) this.done.add(rule.ruleId);
    else if (rule.intervalMs > 0) this.pauseEnd.set(rule.ruleId, nowMs + rule.intervalMs);
  }

  /** One Time rules that fired and may be dropped from their lists. */
  isDone(ruleId: number): boolean {
    return this.done.has(ruleId);
  }
}

import { LARGE_TRADE_TYPE, type TradeSide } from '../domain/enums.js';
import { NO_FIRINGS, type Firing } from './rules.js';
import { FiringGate, tradeUsd, type LargeTradeRule, type Trade } from './trade-rules.js';

/** A token's rules of one side filter, sorted by `minUsd` when `dirty` is false. */
interface Lane {
  rules: LargeTradeRule[];
  dirty: boolean;
}

/** Lanes by side filter: rules without one, rules for buys only, rules for sells only. */
interface TokenLanes {
  any: Lane;
  BUY: Lane;
  SELL: Lane;
}

const laneOf = (lanes: TokenLanes, side: TradeSide | null): Lane => (side === null ? lanes.any : lanes[side]);

/**
 * `Large Trade` rules: a trade fires the rules whose `minUsd` it reaches. Per token, each side
 * filter keeps its rules sorted by `minUsd`, so a trade walks the prefix it reaches in the lane of
 * rules without a side and in the lane of its own side, and nothing else: rules of the other side,
 * and rules asking for more, are never looked at. Rules in a Recurring pause stay in place and are
 * skipped; One Time rules that fired are dropped when next walked over.
 */
export class LargeTradeRules {
  private readonly byToken = new Map<string, TokenLanes>();
  private readonly byId = new Map<number, LargeTradeRule>();
  private readonly gate = new FiringGate();

  get size(): number {
    return this.byId.size;
  }

  watches(token: string): boolean {
    return this.byToken.has(token);
  }

  /** Adds a rule (replacing one with the same id). */
  add(rule: LargeTradeRule, nowMs: number): void {
    this.remove(rule.ruleId);
    this.byId.set(rule.ruleId, rule);
    this.gate.reset(rule, nowMs);
    let lanes = this.byToken.get(rule.token);
    if (!lanes) {
      lanes = { any: { rules: [], dirty: false }, BUY: { rules: [], dirty: false }, SELL: { rules: [], dirty: false } };
      this.byToken.set(rule.token, lanes);
    }
    const lane = laneOf(lanes, rule.side);
    lane.rules.push(rule);
    // Sorted at the token's next trade: a bulk load appends only.
    lane.dirty = true;
  }

  remove(ruleId: number): void {
    const rule = this.byId.get(ruleId);
    if (!rule) return;
    this.byId.delete(ruleId);
    this.gate.forget(ruleId);
    // A One Time rule that fired has left its lane already, and its token may be gone with the others.
    const lanes = this.byToken.get(rule.token);
    if (!lanes) return;
    const lane = laneOf(lanes, rule.side);
    const at = lane.rules.indexOf(rule);
    if (at >= 0) lane.rules.splice(at, 1);
    if (lanes.any.rules.length === 0 && lanes.BUY.rules.length === 0 && lanes.SELL.rules.length === 0) this.byToken.delete(rule.token);
  }

  /** The firings of one trade on `token`. */
  trade(token: string, trade: Trade, nowMs: number): readonly Firing[] {
    const lanes = this.byToken.get(token);
    if (!lanes) return NO_FIRINGS;
    const usd = tradeUsd(trade);
    if (!Number.isFinite(usd) || usd <= 0) return NO_FIRINGS;
    const out: Firing[] = [];
    this.walk(lanes.any, trade, usd, nowMs, out);
    if (trade.side !== null) this.walk(lanes[trade.side], trade, usd, nowMs, out);
    return out.length > 0 ? out : NO_FIRINGS;
  }

  /** Fires the lane's prefix of rules whose `minUsd` the trade reaches, into `out`. */
  private walk(lane: Lane, trade: Trade, usd: number, nowMs: number, out: Firing[]): void {
    if (lane.dirty) {
      lane.rules.sort((a, b) => a.minUsd - b.minUsd);
      lane.dirty = false;
    }
    const rules = lane.rules;
    let kept = 0;
    let i = 0;
    for (; i < rules.length && rules[i]!.minUsd <= usd; i++) {
      const rule = rules[i]!;
      if (this.gate.open(rule, nowMs)) {
        this.gate.fired(rule, nowMs);
        out.push(firingOf(rule, trade, usd, nowMs));
      }
      // One Time rules that fired leave the lane (compacted within the walked prefix).
      if (!this.gate.isDone(rule.ruleId)) rules[kept++] = rule;
    }
    if (kept < i) rules.splice(kept, i - kept);
  }
}

function firingOf(rule: LargeTradeRule, trade: Trade, usd: number, nowMs: number): Firing {
  return {
    ruleId: rule.ruleId,
    subscriptionId: rule.subscriptionId,
    marketId: rule.marketId,
    token: rule.token,
    ruleType: LARGE_TRADE_TYPE,
    previousPrice: null,
    price: trade.price,
    atMs: nowMs,
    details: {
      tradePrice: trade.price,
      tradeSize: trade.size,
      ...(trade.side !== null ? { tradeSide: trade.side } : {}),
      tradeUsd: usd,
      ...(trade.transactionHash !== null ? { transactionHash: trade.transactionHash } : {}),
    },
  };
}

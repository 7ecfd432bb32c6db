import { PRICE_RULE_TYPES, type PriceRuleType } from '../domain/enums.js';
import {
  CROSSING, CROSSING_DOWN, CROSSING_STEP, CROSSING_UP, GREATER_THAN, LESS_THAN,
  initialPauseEnd, type CompiledRule,
} from './rules.js';

export const TYPE_CROSSING = PRICE_RULE_TYPES.indexOf(CROSSING);
export const TYPE_UP = PRICE_RULE_TYPES.indexOf(CROSSING_UP);
export const TYPE_DOWN = PRICE_RULE_TYPES.indexOf(CROSSING_DOWN);
export const TYPE_STEP = PRICE_RULE_TYPES.indexOf(CROSSING_STEP);
export const TYPE_GREATER = PRICE_RULE_TYPES.indexOf(GREATER_THAN);
export const TYPE_LESS = PRICE_RULE_TYPES.indexOf(LESS_THAN);

export const ALIVE = 1;
export const ENABLED = 2;
export const ONE_TIME = 4;

/** Where a rule sits: in no structure, in its lanes (armed), or in the pause heap (level rules). */
export const OUT = 0;
export const ARMED = 1;
export const PAUSED = 2;

/** Rule fields in columns indexed by the dense rule id: ~50 bytes a rule plus its two strings. */
export class RuleStore {
  capacity = 0;
  token = new Int32Array(0);
  type = new Uint8Array(0);
  flags = new Uint8Array(0);
  state = new Uint8Array(0);
  threshold = new Float64Array(0);
  interval = new Float64Array(0);
  expires = new Float64Array(0);
  pauseEnd = new Float64Array(0);
  subscriptionId: string[] = [];
  marketId: string[] = [];
  private readonly markets = new Map<string, string>();

  isAlive(ruleId: number): boolean {
    return ruleId >= 0 && ruleId < this.capacity && (this.flags[ruleId] & ALIVE) !== 0;
  }

  ruleType(ruleId: number): PriceRuleType {
    return PRICE_RULE_TYPES[this.type[ruleId]];
  }

  set(rule: CompiledRule, tokenIndex: number, nowMs: number): void {
    const r = rule.ruleId;
    if (!Number.isInteger(r) || r < 0) throw new RangeError(`ruleId must be a non-negative integer: ${r}`);
    if (r >= this.capacity) this.grow(r + 1);
    this.token[r] = tokenIndex;
    this.type[r] = PRICE_RULE_TYPES.indexOf(rule.type);
    this.flags[r] = ALIVE | (rule.enabled ? ENABLED : 0) | (rule.oneTime ? ONE_TIME : 0);
    this.state[r] = OUT;
    this.threshold[r] = rule.threshold;
    this.interval[r] = rule.oneTime ? 0 : rule.intervalMs;
    this.expires[r] = rule.expiresAtMs ?? Infinity;
    this.pauseEnd[r] = initialPauseEnd(rule, nowMs);
    this.subscriptionId[r] = rule.subscriptionId;
    this.marketId[r] = this.intern(rule.marketId);
  }

  clear(ruleId: number): void {
    this.flags[ruleId] = 0;
    this.state[ruleId] = OUT;
    this.subscriptionId[ruleId] = '';
    this.marketId[ruleId] = '';
  }

  private intern(marketId: string): string {
    const known = this.markets.get(marketId);
    if (known !== undefined) return known;
    this.markets.set(marketId, marketId);
    return marketId;
  }

  private grow(min: number): void {
    const capacity = Math.max(min, this.capacity * 2, 1024);
    const widen = <T extends Float64Array | Int32Array | Uint8Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    this.token = widen(this.token, new Int32Array(capacity));
    this.type = widen(this.type, new Uint8Array(capacity));
    this.flags = widen(this.flags, new Uint8Array(capacity));
    this.state = widen(this.state, new Uint8Array(capacity));
    this.threshold = widen(this.threshold, new Float64Array(capacity));
    this.interval = widen(this.interval, new Float64Array(capacity));
    this.expires = widen(this.expires, new Float64Array(capacity));
    this.pauseEnd = widen(this.pauseEnd, new Float64Array(capacity));
    for (let i = this.capacity; i < capacity; i++) {
      this.subscriptionId.push('');
      this.marketId.push('');
    }
    this.capacity = capacity;
  }
}

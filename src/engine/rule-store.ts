import { PRICE_RULE_TYPES, type PriceRuleType } from '../domain/enums.js';
import {
  CROSSING, CROSSING_DOWN, CROSSING_STEP, CROSSING_UP, GREATER_THAN, LESS_THAN,
  effectiveBand, initialPauseEnd, rearmLevel, type CompiledRule, type RearmSide,
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

/** A rule's re-arm side (docs/engine.md, "Re-arm bands"): armed, or inside the band of an up or down firing. */
export const SIDE_NONE = 0;
export const SIDE_UP = 1;
export const SIDE_DOWN = 2;
export const SIDE_NAMES: readonly (RearmSide | null)[] = [null, 'up', 'down'];

// A rule's numbers share one 32-byte record and its small fields one 4-byte record, so judging a
// crossed rule costs two cache misses rather than one per field.
const NUM_STRIDE = 4;
const THRESHOLD = 0;
const INTERVAL = 1;
const EXPIRES = 2;
const PAUSE_END = 3;
const META_STRIDE = 4;
const TYPE = 0;
const FLAGS = 1;
const STATE = 2;
const SIDE = 3;

/** Rule fields indexed by the dense rule id: 48 bytes of typed arrays a rule, plus its two strings. */
export class RuleStore {
  capacity = 0;
  private num = new Float64Array(0);
  private meta = new Uint8Array(0);
  private tokens = new Int32Array(0);
  /** Re-arm band per rule; read only when a rule with one fires or re-arms, so apart from the hot record. */
  private bands = new Float64Array(0);
  /** subscriptionId and marketId side by side. */
  private ids: string[] = [];
  private readonly markets = new Map<string, string>();

  isAlive(r: number): boolean {
    return r >= 0 && r < this.capacity && (this.meta[r * META_STRIDE + FLAGS] & ALIVE) !== 0;
  }

  threshold(r: number): number { return this.num[r * NUM_STRIDE + THRESHOLD]; }
  interval(r: number): number { return this.num[r * NUM_STRIDE + INTERVAL]; }
  expires(r: number): number { return this.num[r * NUM_STRIDE + EXPIRES]; }
  pauseEnd(r: number): number { return this.num[r * NUM_STRIDE + PAUSE_END]; }
  setPauseEnd(r: number, atMs: number): void { this.num[r * NUM_STRIDE + PAUSE_END] = atMs; }
  type(r: number): number { return this.meta[r * META_STRIDE + TYPE]; }
  flags(r: number): number { return this.meta[r * META_STRIDE + FLAGS]; }
  setFlag(r: number, flag: number): void { this.meta[r * META_STRIDE + FLAGS] |= flag; }
  clearFlag(r: number, flag: number): void { this.meta[r * META_STRIDE + FLAGS] &= ~flag; }
  state(r: number): number { return this.meta[r * META_STRIDE + STATE]; }
  setState(r: number, state: number): void { this.meta[r * META_STRIDE + STATE] = state; }
  token(r: number): number { return this.tokens[r]; }
  band(r: number): number { return this.bands[r]; }
  side(r: number): number { return this.meta[r * META_STRIDE + SIDE]; }
  setSide(r: number, side: number): void { this.meta[r * META_STRIDE + SIDE] = side; }
  /** The price that re-arms the rule; only valid while its side is set. */
  rearmAt(r: number): number { return rearmLevel(this.threshold(r), this.bands[r], SIDE_NAMES[this.side(r)]!); }
  subscriptionId(r: number): string { return this.ids[2 * r]; }
  marketId(r: number): string { return this.ids[2 * r + 1]; }

  ruleType(r: number): PriceRuleType {
    return PRICE_RULE_TYPES[this.type(r)];
  }

  set(rule: CompiledRule, tokenIndex: number, nowMs: number): void {
    const r = rule.ruleId;
    if (!Number.isInteger(r) || r < 0) throw new RangeError(`ruleId must be a non-negative integer: ${r}`);
    if (r >= this.capacity) this.grow(r + 1);
    this.tokens[r] = tokenIndex;
    this.num.set([rule.threshold, rule.oneTime ? 0 : rule.intervalMs, rule.expiresAtMs ?? Infinity, initialPauseEnd(rule, nowMs)], r * NUM_STRIDE);
    const flags = ALIVE | (rule.enabled ? ENABLED : 0) | (rule.oneTime ? ONE_TIME : 0);
    const band = effectiveBand(rule);
    this.bands[r] = band;
    const side = band > 0 && rule.rearmAfter ? SIDE_NAMES.indexOf(rule.rearmAfter) : SIDE_NONE;
    // The index keeps move rules elsewhere (moves.ts): only price rules come here.
    this.meta.set([PRICE_RULE_TYPES.indexOf(rule.type as PriceRuleType), flags, OUT, side], r * META_STRIDE);
    this.ids[2 * r] = rule.subscriptionId;
    this.ids[2 * r + 1] = this.intern(rule.marketId);
  }

  clear(r: number): void {
    this.meta.fill(0, r * META_STRIDE, (r + 1) * META_STRIDE);
    this.ids[2 * r] = '';
    this.ids[2 * r + 1] = '';
  }

  private intern(marketId: string): string {
    const known = this.markets.get(marketId);
    if (known !== undefined) return known;
    this.markets.set(marketId, marketId);
    return marketId;
  }

  private grow(min: number): void {
    const capacity = Math.max(min, this.capacity * 2, 1024);
    const num = new Float64Array(capacity * NUM_STRIDE);
    const meta = new Uint8Array(capacity * META_STRIDE);
    const tokens = new Int32Array(capacity);
    const bands = new Float64Array(capacity);
    num.set(this.num);
    meta.set(this.meta);
    tokens.set(this.tokens);
    bands.set(this.bands);
    this.num = num;
    this.meta = meta;
    this.tokens = tokens;
    this.bands = bands;
    for (let i = 2 * this.capacity; i < 2 * capacity; i++) this.ids.push('');
    this.capacity = capacity;
  }
}

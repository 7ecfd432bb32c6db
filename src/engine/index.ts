import { isMoveRuleType } from '../domain/enums.js';
import { Firer } from './firing.js';
import { MoveBook } from './moves.js';
import { PauseHeap } from './pause-heap.js';
import {
  ARMED, ENABLED, OUT, PAUSED, RuleStore, SIDE_DOWN, SIDE_NAMES, SIDE_NONE, SIDE_UP, TYPE_DOWN, TYPE_GREATER, TYPE_LESS, TYPE_STEP,
  TYPE_UP,
} from './rule-store.js';
import { NO_FIRINGS, type AlertEvaluator, type CompiledRule, type Firing, type RearmSide } from './rules.js';
import { isValidStep } from './step-levels.js';
import {
  CROSSINGS_CHANGED, DIRTY, GREATER_MIN, HOT_STRIDE, LESS_MAX, LEVELS_CHANGED, PRICE, REARM_CHANGED, REARM_HI,
  REARM_LO, SAFE_HI, SAFE_LO, TokenState,
} from './token-state.js';

export type { CompiledRule, Firing } from './rules.js';

const NO_RULES: readonly number[] = Object.freeze([]);
/** Held by a released dense index until a token reuses it (its lanes are empty). */
const RELEASED = new TokenState('');

/**
 * The alert engine's rule index: per token, sorted thresholds by rule family, so a tick costs
 * O(log n + fired). Same semantics as `ReferenceEvaluator` (see docs/engine.md).
 */
export class RuleIndex implements AlertEvaluator {
  private readonly rules = new RuleStore();
  private readonly tokenIds = new Map<string, number>();
  private readonly tokens: TokenState[] = [];
  /** Rules (price and window) per dense index: a token is released only with none. */
  private readonly ruleCounts: number[] = [];
  /** Dense indexes of released tokens, reused before new ones (a long run's churn stays bounded). */
  private readonly freeIndexes: number[] = [];
  private readonly heap = new PauseHeap();
  /** Per token: price, safe interval, armed level extremes, dirty bits (see token-state.ts). */
  private hot = new Float64Array(HOT_STRIDE * 1024);
  private readonly firer = new Firer(this.rules, this.heap);
  /** The window-move rules (`Moves … By`), beside the price rules under the same rule ids. */
  private readonly moves = new MoveBook();
  /** Reused by every price of a token with move rules, so a quiet one allocates nothing. */
  private readonly moveFirings: Firing[] = [];
  private count = 0;

  /** `reportBandChanges`: keep the list `takeBandChanges` answers (the runner saves it; a replay need not). */
  constructor(options: { reportBandChanges?: boolean } = {}) {
    if (options.reportBandChanges) this.firer.bandChanges = [];
  }

  get size(): number {
    return this.count;
  }

  /** Dense index of a token (created on first use), for `tickIndex`. */
  tokenIndex(token: string): number {
    let index = this.tokenIds.get(token);
    if (index === undefined) {
      index = this.freeIndexes.pop();
      if (index === undefined) {
        index = this.tokens.length;
        this.tokens.push(new TokenState(token));
        this.ruleCounts.push(0);
      } else this.tokens[index] = new TokenState(token);
      this.tokenIds.set(token, index);
      const h = index * HOT_STRIDE;
      if (h === this.hot.length) this.growHot();
      this.hot.set([NaN, NaN, NaN, Infinity, -Infinity, LEVELS_CHANGED | CROSSINGS_CHANGED, -Infinity, Infinity], h);
    }
    return index;
  }

  /** Number of tokens holding a dense index (for tests of a long run's churn). */
  get tokenCount(): number {
    return this.tokenIds.size;
  }

  /**
   * Frees the token's dense index when no rule is on it (its price and windows go): the next
   * `tokenIndex` of any token may reuse it, so a caller keeping the index must drop it now.
   */
  releaseToken(token: string): void {
    const index = this.tokenIds.get(token);
    if (index === undefined || this.ruleCounts[index] !== 0) return;
    this.forgetPrice(token);
    this.tokenIds.delete(token);
    this.tokens[index] = RELEASED;
    this.freeIndexes.push(index);
  }

  /** Sorts every token's pending inserts now (after a bulk load) instead of on its next tick. */
  settleAll(): void {
    for (let i = 0; i < this.tokens.length; i++) this.tokens[i].prepare(this.hot, i * HOT_STRIDE);
  }

  lastPrice(token: string): number | undefined {
    const index = this.tokenIds.get(token);
    const price = index === undefined ? NaN : this.hot[index * HOT_STRIDE + PRICE];
    return price === price ? price : undefined;
  }

  /**
   * Replaces a rule's band state with one saved elsewhere (an engine taking the token over reads
   * what the previous owner saved), as `CompiledRule.rearmAfter` does on add.
   */
  restoreBand(ruleId: number, side: RearmSide | null): void {
    const rules = this.rules;
    if (!rules.isAlive(ruleId) || rules.band(ruleId) === 0) return;
    this.dropBand(ruleId);
    if (side === null || rules.state(ruleId) !== ARMED) return;
    rules.setSide(ruleId, SIDE_NAMES.indexOf(side));
    this.holdBand(ruleId);
  }

  /**
   * Rules whose re-arm side changed (a firing started a band, a price passed one) since the last
   * call, for the runner to save; read `rearmAfter` for each.
   */
  takeBandChanges(): readonly number[] {
    const changed = this.firer.bandChanges;
    if (changed === null || changed.length === 0) return NO_RULES;
    this.firer.bandChanges = [];
    return changed;
  }

  /**
   * The direction of the firing whose re-arm band the price has not gone back past yet (null when
   * armed or unknown), for a reload to hand back as `CompiledRule.rearmAfter`.
   */
  rearmAfter(ruleId: number): RearmSide | null {
    return this.rules.isAlive(ruleId) ? SIDE_NAMES[this.rules.side(ruleId)] : null;
  }

  /** Whether a window-move rule fired and its move still holds, for a reload to hand back as `CompiledRule.moveHolding`. */
  moveHolding(ruleId: number): boolean {
    return this.moves.holding(ruleId);
  }

  add(rule: CompiledRule, nowMs: number): readonly Firing[] {
    this.remove(rule.ruleId);
    const tokenIndex = this.tokenIndex(rule.token);
    this.ruleCounts[tokenIndex]++;
    this.count++;
    if (isMoveRuleType(rule.type)) {
      this.moves.add(rule, tokenIndex, this.hot[tokenIndex * HOT_STRIDE + PRICE], nowMs);
      return NO_FIRINGS;
    }
    this.rules.set(rule, tokenIndex, nowMs);
    if (rule.enabled) this.activate(rule.ruleId, nowMs);
    return this.firer.flush();
  }

  remove(ruleId: number): void {
    if (this.moves.has(ruleId)) {
      this.ruleCounts[this.moves.tokenOf(ruleId)]--;
      this.moves.remove(ruleId);
      this.count--;
      return;
    }
    if (!this.rules.isAlive(ruleId)) return;
    this.ruleCounts[this.rules.token(ruleId)]--;
    this.deactivate(ruleId);
    this.rules.clear(ruleId);
    this.count--;
  }

  /** Pause (false) or restart (true); a restart clears the pause and checks level rules at once. */
  setEnabled(ruleId: number, enabled: boolean, nowMs: number): readonly Firing[] {
    // A restarted move rule fires on the token's next price, not at once (docs/engine.md "Window moves").
    if (this.moves.has(ruleId)) {
      this.moves.setEnabled(ruleId, enabled, nowMs);
      return NO_FIRINGS;
    }
    const r = this.rules;
    if (!r.isAlive(ruleId) || ((r.flags(ruleId) & ENABLED) !== 0) === enabled) return NO_FIRINGS;
    if (!enabled) {
      r.clearFlag(ruleId, ENABLED);
      this.deactivate(ruleId);
      return NO_FIRINGS;
    }
    r.setFlag(ruleId, ENABLED);
    r.setPauseEnd(ruleId, -Infinity);
    r.setSide(ruleId, SIDE_NONE);
    this.activate(ruleId, nowMs);
    return this.firer.flush();
  }

  tick(token: string, price: number, nowMs: number): readonly Firing[] {
    return this.tickIndex(this.tokenIndex(token), price, nowMs);
  }

  /** `tick` by the dense index from `tokenIndex`, skipping the string lookup. */
  tickIndex(tokenIndex: number, price: number, nowMs: number): readonly Firing[] {
    if (!Number.isFinite(price)) return NO_FIRINGS;
    if (!(tokenIndex >= 0 && tokenIndex < this.tokens.length)) throw new RangeError(`unknown token index ${tokenIndex}`);
    if (this.heap.n !== 0 && this.heap.keys[0] <= nowMs) this.runSweep(nowMs);
    const hot = this.hot;
    const h = tokenIndex * HOT_STRIDE;
    if (hot[h + DIRTY] !== 0) this.tokens[tokenIndex].prepare(hot, h);
    const p0 = hot[h + PRICE];
    hot[h + PRICE] = price;
    if (!(price > hot[h + SAFE_LO] && price < hot[h + SAFE_HI])) {
      const s = this.tokens[tokenIndex];
      if (p0 === p0 && p0 !== price) this.firer.crossings(s, p0, price, nowMs);
      s.writeSafe(hot, h);
    }
    if (price > hot[h + GREATER_MIN] || price < hot[h + LESS_MAX]) this.fireLevels(tokenIndex, p0, price, nowMs);
    if (price <= hot[h + REARM_HI] || price >= hot[h + REARM_LO]) this.rearm(tokenIndex, p0, price, nowMs);
    if (this.firer.disarmed) this.noteDisarmed(tokenIndex);
    return this.moves.follows(tokenIndex) ? this.withMoves(tokenIndex, price, nowMs) : this.firer.flush();
  }

  /** The price rules' firings and then the move rules' on the same price. */
  private withMoves(tokenIndex: number, price: number, nowMs: number): readonly Firing[] {
    const firings = this.firer.flush();
    const out = this.moveFirings;
    this.moves.sample(tokenIndex, price, nowMs, out);
    if (out.length === 0) return firings;
    const all = firings.length === 0 ? out.slice() : [...firings, ...out];
    out.length = 0;
    return all;
  }

  /**
   * Makes `price` the token's crossing reference without firing any crossing: for a price that is
   * not a move the rules saw (the first fresh price after a token was not followed, a price taken
   * over from another engine). Level rules still fire when they hold at it, as on a tick.
   */
  setPrice(token: string, price: number, nowMs: number): readonly Firing[] {
    if (!Number.isFinite(price)) return NO_FIRINGS;
    return this.setPriceIndex(this.tokenIndex(token), price, nowMs);
  }

  /** `setPrice` by the dense index from `tokenIndex`, skipping the string lookup. */
  setPriceIndex(tokenIndex: number, price: number, nowMs: number): readonly Firing[] {
    if (!Number.isFinite(price)) return NO_FIRINGS;
    if (!(tokenIndex >= 0 && tokenIndex < this.tokens.length)) throw new RangeError(`unknown token index ${tokenIndex}`);
    if (this.heap.n !== 0 && this.heap.keys[0] <= nowMs) this.runSweep(nowMs);
    const hot = this.hot;
    const h = tokenIndex * HOT_STRIDE;
    if (hot[h + DIRTY] !== 0) this.tokens[tokenIndex].prepare(hot, h);
    hot[h + PRICE] = price;
    this.tokens[tokenIndex].writeSafe(hot, h);
    if (price > hot[h + GREATER_MIN] || price < hot[h + LESS_MAX]) this.fireLevels(tokenIndex, NaN, price, nowMs);
    if (price <= hot[h + REARM_HI] || price >= hot[h + REARM_LO]) this.rearm(tokenIndex, NaN, price, nowMs);
    // A price that is no move for the crossings still is one for the windows (it was displayed).
    return this.moves.follows(tokenIndex) ? this.withMoves(tokenIndex, price, nowMs) : this.firer.flush();
  }

  /** Re-arms the rules whose band the price has gone back past (the caller checked the cached keys). */
  private rearm(tokenIndex: number, p0: number, price: number, nowMs: number): void {
    const hot = this.hot;
    const h = tokenIndex * HOT_STRIDE;
    const s = this.tokens[tokenIndex];
    if (price <= hot[h + REARM_HI]) {
      const lane = s.rearmBelow;
      this.firer.rearms(s, lane, lane.lowerBound(price), lane.sortedN, SIDE_UP, p0, price, nowMs);
      hot[h + REARM_HI] = lane.sortedN !== 0 ? lane.t[lane.sortedN - 1] : -Infinity;
    }
    if (price >= hot[h + REARM_LO]) {
      const lane = s.rearmAbove;
      this.firer.rearms(s, lane, 0, lane.upperBound(price), SIDE_DOWN, p0, price, nowMs);
      hot[h + REARM_LO] = lane.sortedN !== 0 ? lane.t[0] : Infinity;
    }
    if (this.firer.disarmed) this.noteDisarmed(tokenIndex);
  }

  /** Rules entered a re-arm lane's unsorted tail: the next tick of the token settles it. */
  private noteDisarmed(tokenIndex: number): void {
    this.firer.disarmed = false;
    this.markDirty(tokenIndex, REARM_CHANGED);
  }

  /** The token's price becomes unknown: its next price only sets the reference (and checks level rules). */
  forgetPrice(token: string): void {
    const index = this.tokenIds.get(token);
    if (index === undefined) return;
    const h = index * HOT_STRIDE;
    this.moves.forget(index);
    // NaN bounds send the next tick down the slow path, which recomputes them.
    this.hot[h + PRICE] = NaN;
    this.hot[h + SAFE_LO] = NaN;
    this.hot[h + SAFE_HI] = NaN;
  }

  /** Fires the armed level rules the price satisfies (the caller checked the cached extremes). */
  private fireLevels(tokenIndex: number, p0: number, price: number, nowMs: number): void {
    const hot = this.hot;
    const h = tokenIndex * HOT_STRIDE;
    const s = this.tokens[tokenIndex];
    if (price > hot[h + GREATER_MIN]) {
      const lane = s.greater;
      this.firer.levels(s, lane, 0, lane.lowerBound(price), p0, price, nowMs);
      hot[h + GREATER_MIN] = lane.n !== 0 ? lane.t[0] : Infinity;
    }
    if (price < hot[h + LESS_MAX]) {
      const lane = s.less;
      this.firer.levels(s, lane, lane.upperBound(price), lane.n, p0, price, nowMs);
      hot[h + LESS_MAX] = lane.n !== 0 ? lane.t[lane.n - 1] : -Infinity;
    }
  }

  /** Level rules whose Recurring pause has ended fire now if they still hold at the last price. */
  sweep(nowMs: number): readonly Firing[] {
    if (this.heap.n !== 0 && this.heap.keys[0] <= nowMs) this.runSweep(nowMs);
    return this.firer.flush();
  }

  private runSweep(nowMs: number): void {
    const { heap, rules } = this;
    while (heap.n !== 0 && heap.topKey() <= nowMs) {
      const key = heap.topKey();
      const r = heap.pop();
      if (rules.state(r) !== PAUSED || rules.pauseEnd(r) !== key) continue;
      rules.setState(r, OUT);
      rules.setPauseEnd(r, -Infinity);
      this.armLevel(r, nowMs);
    }
  }

  private activate(r: number, nowMs: number): void {
    const rules = this.rules;
    const t = rules.threshold(r);
    if (nowMs >= rules.expires(r) || !Number.isFinite(t)) return;
    const type = rules.type(r);
    const tokenIndex = rules.token(r);
    const s = this.tokens[tokenIndex];
    if (type === TYPE_GREATER || type === TYPE_LESS) {
      if (rules.pauseEnd(r) > nowMs) {
        rules.setState(r, PAUSED);
        this.heap.push(rules.pauseEnd(r), r);
      } else {
        this.armLevel(r, nowMs);
      }
      return;
    }
    if (type === TYPE_STEP) {
      if (!isValidStep(t)) return;
      s.stepGroup(t).push(r);
    } else {
      if (type !== TYPE_DOWN) s.up.push(t, r);
      if (type !== TYPE_UP) s.down.push(t, r);
    }
    rules.setState(r, ARMED);
    this.markDirty(tokenIndex, CROSSINGS_CHANGED);
    this.holdBand(r);
  }

  /** A band restored (reload, takeover): passed already if the known price is past it, else waited for. */
  private holdBand(r: number): void {
    const rules = this.rules;
    const side = rules.side(r);
    if (side === SIDE_NONE) return;
    const tokenIndex = rules.token(r);
    const level = rules.rearmAt(r);
    const p = this.hot[tokenIndex * HOT_STRIDE + PRICE];
    if (side === SIDE_UP ? p <= level : p >= level) {
      rules.setSide(r, SIDE_NONE);
      this.firer.bandChanges?.push(r);
      return;
    }
    const s = this.tokens[tokenIndex];
    (side === SIDE_UP ? s.rearmBelow : s.rearmAbove).push(level, r);
    this.markDirty(tokenIndex, REARM_CHANGED);
  }

  /** Takes out a rule's band, if any, without reporting it (the rule leaves or its band is replaced). */
  private dropBand(r: number): void {
    const rules = this.rules;
    const side = rules.side(r);
    if (side === SIDE_NONE) return;
    const tokenIndex = rules.token(r);
    const s = this.tokens[tokenIndex];
    (side === SIDE_UP ? s.rearmBelow : s.rearmAbove).remove(rules.rearmAt(r), r);
    rules.setSide(r, SIDE_NONE);
    this.markDirty(tokenIndex, REARM_CHANGED);
  }

  /** A level rule leaving its pause (or added): fires at once if it holds, else waits armed. */
  private armLevel(r: number, nowMs: number): void {
    const rules = this.rules;
    if (nowMs >= rules.expires(r)) return;
    const tokenIndex = rules.token(r);
    const p = this.hot[tokenIndex * HOT_STRIDE + PRICE];
    const t = rules.threshold(r);
    const greater = rules.type(r) === TYPE_GREATER;
    const s = this.tokens[tokenIndex];
    if ((greater ? p > t : p < t) && !this.firer.level(r, s, NaN, p, nowMs)) return;
    rules.setState(r, ARMED);
    (greater ? s.greater : s.less).push(t, r);
    this.markDirty(tokenIndex, LEVELS_CHANGED);
  }

  private deactivate(r: number): void {
    const rules = this.rules;
    const state = rules.state(r);
    rules.setState(r, OUT);
    this.dropBand(r);
    if (state !== ARMED) return;
    const tokenIndex = rules.token(r);
    const s = this.tokens[tokenIndex];
    const t = rules.threshold(r);
    const type = rules.type(r);
    if (type === TYPE_GREATER || type === TYPE_LESS) {
      (type === TYPE_GREATER ? s.greater : s.less).remove(t, r);
      this.markDirty(tokenIndex, LEVELS_CHANGED);
      return;
    }
    if (type === TYPE_STEP) s.stepGroup(t).remove(r);
    else {
      if (type !== TYPE_DOWN) s.up.remove(t, r);
      if (type !== TYPE_UP) s.down.remove(t, r);
    }
    this.markDirty(tokenIndex, CROSSINGS_CHANGED);
  }

  private markDirty(tokenIndex: number, bits: number): void {
    const at = tokenIndex * HOT_STRIDE + DIRTY;
    this.hot[at] = this.hot[at] | bits;
  }

  private growHot(): void {
    const hot = new Float64Array(this.hot.length * 2);
    hot.set(this.hot);
    this.hot = hot;
  }
}

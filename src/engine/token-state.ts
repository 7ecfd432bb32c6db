import { Lane } from './lane.js';
import { allLevels } from './step-levels.js';

/** All Crossing Step rules of one token with the same step (unordered ids). */
export class StepGroup {
  ids = new Int32Array(4);
  n = 0;

  constructor(readonly step: number) {}

  push(ruleId: number): void {
    if (this.n === this.ids.length) {
      const ids = new Int32Array(this.ids.length * 2);
      ids.set(this.ids);
      this.ids = ids;
    }
    this.ids[this.n++] = ruleId;
  }

  remove(ruleId: number): void {
    for (let i = 0; i < this.n; i++) {
      if (this.ids[i] === ruleId) {
        this.ids[i] = this.ids[--this.n];
        return;
      }
    }
  }
}

/** Offsets in a token's hot record (a Float64Array slot of HOT_STRIDE values, one cache line). */
export const HOT_STRIDE = 8;
export const PRICE = 0;
export const SAFE_LO = 1;
export const SAFE_HI = 2;
export const GREATER_MIN = 3;
export const LESS_MAX = 4;
export const DIRTY = 5;
/** The highest key of `rearmBelow` (-Infinity when empty), the lowest of `rearmAbove` (Infinity). */
export const REARM_HI = 6;
export const REARM_LO = 7;
/** DIRTY bits: the armed level lanes changed; the crossing lanes or step groups changed; the re-arm lanes changed. */
export const LEVELS_CHANGED = 1;
export const CROSSINGS_CHANGED = 2;
export const REARM_CHANGED = 4;

/**
 * One token's rules by family. Its price and the values a quiet tick reads live in the index's hot
 * record instead, so the common tick touches one cache line. `bounds` holds every crossing
 * threshold and step level, so the safe interval around the price is one binary search away.
 */
export class TokenState {
  /** Crossing Up and Crossing thresholds. */
  readonly up = new Lane();
  /** Crossing Down and Crossing thresholds. */
  readonly down = new Lane();
  /** Armed (enabled, not paused) Greater Than thresholds. */
  readonly greater = new Lane();
  /** Armed Less Than thresholds. */
  readonly less = new Lane();
  readonly steps: StepGroup[] = [];
  /** Crossing rules inside the band of an upward firing, keyed by the price at or below which they re-arm. */
  readonly rearmBelow = new Lane();
  /** Crossing rules inside the band of a downward firing, keyed by the price at or above which they re-arm. */
  readonly rearmAbove = new Lane();
  /** Sorted thresholds and levels; may keep some of removed rules, which only narrows the interval. */
  private bounds = new Float64Array(0);

  constructor(readonly token: string) {}

  stepGroup(step: number): StepGroup {
    let group = this.steps.find((g) => g.step === step);
    if (group === undefined) {
      group = new StepGroup(step);
      this.steps.push(group);
    }
    return group;
  }

  /** Sorts pending inserts and refreshes what the hot record caches. */
  prepare(hot: Float64Array, h: number): void {
    const dirty = hot[h + DIRTY];
    if ((dirty & LEVELS_CHANGED) !== 0) {
      this.greater.settle();
      this.less.settle();
      hot[h + GREATER_MIN] = this.greater.n !== 0 ? this.greater.t[0] : Infinity;
      hot[h + LESS_MAX] = this.less.n !== 0 ? this.less.t[this.less.n - 1] : -Infinity;
    }
    if ((dirty & REARM_CHANGED) !== 0) {
      this.rearmBelow.settle();
      this.rearmAbove.settle();
      hot[h + REARM_HI] = this.rearmBelow.n !== 0 ? this.rearmBelow.t[this.rearmBelow.n - 1] : -Infinity;
      hot[h + REARM_LO] = this.rearmAbove.n !== 0 ? this.rearmAbove.t[0] : Infinity;
    }
    if ((dirty & CROSSINGS_CHANGED) !== 0) {
      this.up.settle();
      this.down.settle();
      this.rebuildBounds();
      this.writeSafe(hot, h);
    }
    hot[h + DIRTY] = 0;
  }

  /** The widest open interval around the price holding no threshold or level; empty when the price is one. */
  writeSafe(hot: Float64Array, h: number): void {
    const p = hot[h + PRICE];
    const b = this.bounds;
    let lo = 0;
    let hi = b.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (b[mid] < p) lo = mid + 1;
      else hi = mid;
    }
    const onBound = p !== p || (lo < b.length && b[lo] === p);
    hot[h + SAFE_LO] = onBound ? p : lo > 0 ? b[lo - 1] : -Infinity;
    hot[h + SAFE_HI] = onBound ? p : lo < b.length ? b[lo] : Infinity;
  }

  private rebuildBounds(): void {
    const all: number[] = [];
    for (const lane of [this.up, this.down]) for (let i = 0; i < lane.n; i++) all.push(lane.t[i]);
    for (const group of this.steps) if (group.n !== 0) all.push(...allLevels(group.step));
    this.bounds = Float64Array.from(all).sort();
  }
}

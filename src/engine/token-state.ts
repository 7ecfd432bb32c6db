import { Lane } from './lane.js';
import { isLevel, levelAbove, levelBelow } from './step-levels.js';

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

/**
 * One token: its last displayed price and its rules by family. `safeLo`/`safeHi` bound the open
 * interval around the price in which no crossing threshold or step level lies, so a tick that
 * stays inside it can cross nothing and skips every search (the common case).
 */
export class TokenState {
  price = NaN;
  /** Crossing Up and Crossing thresholds. */
  readonly up = new Lane();
  /** Crossing Down and Crossing thresholds. */
  readonly down = new Lane();
  /** Armed (enabled, not paused) Greater Than thresholds. */
  readonly greater = new Lane();
  /** Armed Less Than thresholds. */
  readonly less = new Lane();
  readonly steps: StepGroup[] = [];
  safeLo = NaN;
  safeHi = NaN;
  /** Some lane has unsorted inserts or the crossing structures changed since `safe*` was computed. */
  dirty = true;

  constructor(readonly token: string) {}

  stepGroup(step: number): StepGroup {
    let group = this.steps.find((g) => g.step === step);
    if (group === undefined) {
      group = new StepGroup(step);
      this.steps.push(group);
    }
    return group;
  }

  prepare(): void {
    this.up.settle();
    this.down.settle();
    this.greater.settle();
    this.less.settle();
    this.refreshSafe();
    this.dirty = false;
  }

  /** The widest open interval around the price holding no threshold or level; empty when the price is one. */
  refreshSafe(): void {
    const p = this.price;
    let lo = -Infinity;
    let hi = Infinity;
    let onThreshold = p !== p;
    for (const lane of [this.up, this.down]) {
      const below = lane.lowerBound(p);
      const above = lane.upperBound(p);
      if (below > 0) lo = Math.max(lo, lane.t[below - 1]);
      if (above < lane.n) hi = Math.min(hi, lane.t[above]);
      if (below !== above) onThreshold = true;
    }
    for (const group of this.steps) {
      if (group.n === 0) continue;
      lo = Math.max(lo, levelBelow(group.step, p));
      hi = Math.min(hi, levelAbove(group.step, p));
      if (isLevel(group.step, p)) onThreshold = true;
    }
    this.safeLo = onThreshold ? p : lo;
    this.safeHi = onThreshold ? p : hi;
  }
}

import type { Lane } from './lane.js';
import type { PauseHeap } from './pause-heap.js';
import {
  ARMED, ENABLED, ONE_TIME, OUT, PAUSED, SIDE_DOWN, SIDE_NONE, SIDE_UP, TYPE_CROSSING, type RuleStore,
} from './rule-store.js';
import { NO_FIRINGS, type Firing } from './rules.js';
import { crossedLevels } from './step-levels.js';
import type { StepGroup, TokenState } from './token-state.js';

/**
 * Fires the rules a tick selected and applies each firing's effect: One Time disables, Recurring
 * pauses (level rules move to the pause heap). Ranges are compacted in place as rules leave them.
 */
export class Firer {
  private batch: Firing[] | null = null;
  /** A rule entered a re-arm lane since the index last looked: the token's re-arm lanes need settling. */
  disarmed = false;
  /** Rules whose re-arm side changed since `RuleIndex.takeBandChanges`; null when nobody asks. */
  bandChanges: number[] | null = null;

  constructor(
    private readonly rules: RuleStore,
    private readonly heap: PauseHeap,
  ) {}

  /** Fires every crossing rule and step group of the token that the move p0 → p1 crosses. */
  crossings(s: TokenState, p0: number, p1: number, nowMs: number): void {
    if (p1 > p0) {
      const lo = s.up.upperBound(p0);
      const hi = s.up.upperBound(p1);
      if (lo < hi) this.fireCrossings(s, s.up, lo, hi, s.down, p0, p1, nowMs);
    } else {
      const lo = s.down.lowerBound(p1);
      const hi = s.down.lowerBound(p0);
      if (lo < hi) this.fireCrossings(s, s.down, lo, hi, s.up, p0, p1, nowMs);
    }
    const steps = s.steps;
    for (let g = 0; g < steps.length; g++) {
      const group = steps[g];
      if (group.n === 0) continue;
      const levels = crossedLevels(group.step, p0, p1);
      if (levels.length !== 0) this.fireSteps(s, group, Object.freeze(levels), p0, p1, nowMs);
    }
  }

  /** Fires the crossed range [lo, hi) of a lane, compacting away rules that leave it. */
  private fireCrossings(
    s: TokenState, lane: Lane, lo: number, hi: number, other: Lane, p0: number, p1: number, nowMs: number,
  ): void {
    const rules = this.rules;
    const { id, t } = lane;
    let kept = lo;
    for (let i = lo; i < hi; i++) {
      const r = id[i];
      const keep = nowMs < rules.expires(r) &&
        (nowMs < rules.pauseEnd(r) || rules.side(r) !== SIDE_NONE || this.fireCrossing(r, s, p0, p1, nowMs));
      if (keep) {
        id[kept] = r;
        t[kept++] = t[i];
      } else {
        rules.setState(r, OUT);
        if (rules.type(r) === TYPE_CROSSING) other.remove(t[i], r);
      }
    }
    lane.cut(kept, hi);
  }

  /** Fires a crossing rule; a rule with a re-arm band then waits in the re-arm lane of its direction. */
  private fireCrossing(r: number, s: TokenState, p0: number, p1: number, nowMs: number): boolean {
    if (!this.fireOnce(r, s, p0, p1, undefined, nowMs)) return false;
    if (this.rules.band(r) > 0) this.disarm(r, s, p1 > p0 ? SIDE_UP : SIDE_DOWN);
    return true;
  }

  private disarm(r: number, s: TokenState, side: number): void {
    this.rules.setSide(r, side);
    this.bandChanges?.push(r);
    (side === SIDE_UP ? s.rearmBelow : s.rearmAbove).push(this.rules.rearmAt(r), r);
    this.disarmed = true;
  }

  /**
   * The range [lo, hi) of a re-arm lane that `price` has gone past: each rule is re-armed and leaves
   * the lane. A Crossing rule that sees the move onto that price fires it (the crossing back, past
   * the band) and waits in the other lane. Entries left by rules removed, restarted, or whose id was
   * reused are dropped unseen.
   */
  rearms(s: TokenState, lane: Lane, lo: number, hi: number, side: number, p0: number, price: number, nowMs: number): void {
    const rules = this.rules;
    const { id, t } = lane;
    for (let i = lo; i < hi; i++) {
      const r = id[i];
      const level = t[i];
      if (!rules.isAlive(r) || rules.state(r) !== ARMED || rules.side(r) !== side || rules.rearmAt(r) !== level) continue;
      const sawMove = side === SIDE_UP ? p0 > level : p0 < level; // false for NaN: no move seen
      if (rules.type(r) === TYPE_CROSSING && sawMove && nowMs < rules.expires(r) && nowMs >= rules.pauseEnd(r)) {
        this.fireOnce(r, s, p0, price, undefined, nowMs);
        this.disarm(r, s, side === SIDE_UP ? SIDE_DOWN : SIDE_UP);
      } else {
        rules.setSide(r, SIDE_NONE);
        this.bandChanges?.push(r);
      }
    }
    lane.cut(lo, hi);
  }

  private fireSteps(
    s: TokenState, group: StepGroup, levels: readonly number[], p0: number, p1: number, nowMs: number,
  ): void {
    const rules = this.rules;
    const ids = group.ids;
    let kept = 0;
    for (let i = 0; i < group.n; i++) {
      const r = ids[i];
      const keep = nowMs < rules.expires(r) && (nowMs < rules.pauseEnd(r) || this.fireOnce(r, s, p0, p1, levels, nowMs));
      if (keep) ids[kept++] = r;
      else rules.setState(r, OUT);
    }
    group.n = kept;
  }

  /** Fires the satisfied range [lo, hi) of an armed level lane; paused rules move to the heap. */
  levels(s: TokenState, lane: Lane, lo: number, hi: number, p0: number, price: number, nowMs: number): void {
    const rules = this.rules;
    const { id, t } = lane;
    let kept = lo;
    for (let i = lo; i < hi; i++) {
      const r = id[i];
      if (nowMs >= rules.expires(r)) rules.setState(r, OUT);
      else if (this.level(r, s, p0, price, nowMs)) {
        id[kept] = r;
        t[kept++] = t[i];
      }
    }
    lane.cut(kept, hi);
  }

  /** Fires a rule: One Time disables it (false: it leaves the index), Recurring starts its pause. */
  private fireOnce(r: number, s: TokenState, p0: number, p1: number, levels: readonly number[] | undefined, nowMs: number): boolean {
    this.emit(r, s, p0, p1, levels, nowMs);
    const rules = this.rules;
    if ((rules.flags(r) & ONE_TIME) !== 0) {
      rules.clearFlag(r, ENABLED);
      return false;
    }
    if (rules.interval(r) > 0) rules.setPauseEnd(r, nowMs + rules.interval(r));
    return true;
  }

  /** Fires a level rule; false when it leaves the armed lane (One Time, or paused to the heap). */
  level(r: number, s: TokenState, p0: number, p1: number, nowMs: number): boolean {
    if (!this.fireOnce(r, s, p0, p1, undefined, nowMs)) {
      this.rules.setState(r, OUT);
      return false;
    }
    const pauseEnd = this.rules.pauseEnd(r);
    if (pauseEnd <= nowMs) return true;
    this.rules.setState(r, PAUSED);
    this.heap.push(pauseEnd, r);
    return false;
  }

  private emit(r: number, s: TokenState, p0: number, p1: number, levels: readonly number[] | undefined, nowMs: number): void {
    const rules = this.rules;
    (this.batch ??= []).push({
      ruleId: r,
      subscriptionId: rules.subscriptionId(r),
      marketId: rules.marketId(r),
      token: s.token,
      ruleType: rules.ruleType(r),
      previousPrice: p0 === p0 ? p0 : null,
      price: p1,
      levels,
      atMs: nowMs,
    });
  }

  /** The firings since the last flush (a shared empty array when none, so quiet ticks allocate nothing). */
  flush(): readonly Firing[] {
    const batch = this.batch;
    this.batch = null;
    return batch ?? NO_FIRINGS;
  }
}

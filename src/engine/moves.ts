import type { MoveRuleType, MoveWindow } from '../domain/enums.js';
import { Lane } from './lane.js';
import { PauseHeap } from './pause-heap.js';
import { KIND_DOWN, KIND_EITHER, KIND_UP, moveBetween, moveFiring, moveKind, validMove, windowMsOf, type WindowExtremes } from './move-rules.js';
import { initialPauseEnd, type CompiledRule, type Firing } from './rules.js';

const OUT = 0;
const ARMED = 1;
/** Fired (Recurring): waits until its move no longer holds before it can fire again. */
const HOLDING = 2;
/**
 * Armed but in its Recurring pause: waits in the pause heap, out of the lanes, so a move that
 * holds does not walk past it on every price (it joins the armed lane when the pause ends).
 */
const PAUSED = 3;

/**
 * A token's lowest (or highest) prices as one monotonic deque that every window length of the token
 * reads from a head of its own. A price is displayed from its time until the next one arrives
 * (`until`), so it stays in a window until the next one is older than the window: a price held for
 * two hours is still the window's start an hour ago. Entries run from older and more extreme to
 * newer and less so; a window's extreme is the entry at its head.
 */
class ExtremeDeque {
  until = new Float64Array(8);
  price = new Float64Array(8);
  tail = 0;

  constructor(private readonly lowest: boolean) {}

  /**
   * Ends the previous price at `atMs` and drops the entries `price` dominates (it lasts longer and
   * is as extreme); answers where `price` goes. The previous price is always the last entry.
   */
  drop(atMs: number, price: number): number {
    const p = this.price;
    let n = this.tail;
    if (n > 0) this.until[n - 1] = atMs;
    while (n > 0 && (this.lowest ? p[n - 1] >= price : p[n - 1] <= price)) n--;
    return n;
  }

  put(n: number, price: number): void {
    this.price[n] = price;
    this.until[n] = Infinity;
    this.tail = n + 1;
  }

  /** Full: drops the `from` entries no window reads any more, or doubles the buffers. */
  shift(from: number, n: number): void {
    if ((n - from) * 2 > this.price.length) {
      const price = new Float64Array(this.price.length * 2);
      const until = new Float64Array(this.until.length * 2);
      price.set(this.price.subarray(from, n));
      until.set(this.until.subarray(from, n));
      this.price = price;
      this.until = until;
    } else {
      this.price.copyWithin(0, from, n);
      this.until.copyWithin(0, from, n);
    }
  }
}

/** The rules of one window length on one token watching one kind of move, by threshold. */
class MoveGroup {
  readonly armed = new Lane();
  readonly holding = new Lane();
  /**
   * The lowest armed and the highest holding threshold while both lanes are settled: a move below
   * the one and at or above the other neither fires nor re-arms anything. `stale` after any change.
   */
  minArmed = Infinity;
  maxHolding = -Infinity;
  stale = true;
}

/** One window length on one token: where it starts in the token's deques, and the rules measuring over it. */
class WindowTrack {
  lowHead = 0;
  highHead = 0;
  readonly groups: (MoveGroup | null)[] = [null, null, null];
  readonly extremes: WindowExtremes = { low: NaN, lowAtMs: NaN, high: NaN, highAtMs: NaN };
  /** Rules in this book on this track, whatever their state: the track lives while any is there. */
  rules = 0;

  constructor(readonly windowMs: number) {}

  group(kind: number): MoveGroup {
    return (this.groups[kind] ??= new MoveGroup());
  }
}

/** A token's windows: the two deques they share and one track per window length, shortest first. */
class TokenWindows {
  readonly low = new ExtremeDeque(true);
  readonly high = new ExtremeDeque(false);
  tracks: WindowTrack[] = [];

  /** A new window length starts with the price displayed now (the last entry), when one is known. */
  track(windowMs: number, price: number, nowMs: number): WindowTrack {
    const known = this.tracks.find((t) => t.windowMs === windowMs);
    if (known !== undefined) return known;
    if (this.low.tail === 0 && price === price) this.push(nowMs, price);
    const track = new WindowTrack(windowMs);
    track.lowHead = Math.max(0, this.low.tail - 1);
    track.highHead = Math.max(0, this.high.tail - 1);
    this.tracks.push(track);
    this.tracks.sort((a, b) => a.windowMs - b.windowMs);
    return track;
  }

  push(atMs: number, price: number): void {
    const tracks = this.tracks;
    let n = this.low.drop(atMs, price);
    if (n === this.low.price.length) {
      let from = n;
      for (const t of tracks) from = Math.min(from, t.lowHead);
      this.low.shift(from, n);
      for (const t of tracks) t.lowHead -= from;
      n -= from;
    }
    this.low.put(n, price);
    let m = this.high.drop(atMs, price);
    if (m === this.high.price.length) {
      let from = m;
      for (const t of tracks) from = Math.min(from, t.highHead);
      this.high.shift(from, m);
      for (const t of tracks) t.highHead -= from;
      m -= from;
    }
    this.high.put(m, price);
    // A window whose extreme was dropped has the new price as its extreme.
    for (let i = 0; i < tracks.length; i++) {
      const t = tracks[i];
      if (t.lowHead > n) t.lowHead = n;
      if (t.highHead > m) t.highHead = m;
    }
  }

  /** Moves a window's heads past the prices that stopped being displayed at or before its start, and reads its extremes. */
  measure(t: WindowTrack, nowMs: number): WindowExtremes {
    const cutoff = nowMs - t.windowMs;
    const low = this.low;
    let h = t.lowHead;
    while (h < low.tail - 1 && low.until[h] <= cutoff) h++;
    t.lowHead = h;
    const high = this.high;
    let g = t.highHead;
    while (g < high.tail - 1 && high.until[g] <= cutoff) g++;
    t.highHead = g;
    const w = t.extremes;
    w.low = low.price[h];
    w.lowAtMs = low.until[h];
    w.high = high.price[g];
    w.highAtMs = high.until[g];
    return w;
  }

  clear(): void {
    this.low.tail = 0;
    this.high.tail = 0;
    for (const t of this.tracks) {
      t.lowHead = 0;
      t.highHead = 0;
    }
  }
}

class MoveRule {
  readonly ruleId: number;
  readonly subscriptionId: string;
  readonly marketId: string;
  readonly token: string;
  readonly type: MoveRuleType;
  readonly window: MoveWindow | undefined;
  readonly kind: number;
  readonly threshold: number;
  readonly oneTime: boolean;
  readonly intervalMs: number;
  readonly expiresAtMs: number;
  enabled: boolean;
  pauseEnd: number;
  state = OUT;

  constructor(rule: CompiledRule, readonly tokenIndex: number, readonly track: WindowTrack | null, nowMs: number) {
    this.ruleId = rule.ruleId;
    this.subscriptionId = rule.subscriptionId;
    this.marketId = rule.marketId;
    this.token = rule.token;
    this.type = rule.type as MoveRuleType;
    this.window = rule.window;
    this.kind = moveKind(this.type);
    this.threshold = rule.threshold;
    this.oneTime = rule.oneTime;
    this.intervalMs = rule.oneTime ? 0 : rule.intervalMs;
    this.expiresAtMs = rule.expiresAtMs ?? Infinity;
    this.enabled = rule.enabled;
    this.pauseEnd = initialPauseEnd(rule, nowMs);
  }
}

/**
 * The window-move rules of the rule index (`Moves Up By`, `Moves Down By`, `Moves By`). Per token:
 * monotonic deques of its lowest and highest prices, read by each window length from a head of its
 * own; per (window, kind): armed and holding rules sorted by threshold; rules in their Recurring
 * pause in a heap. A price costs one push onto each deque, then per window length its heads and per
 * kind with rules two comparisons, plus the rules that fire or re-arm. Same semantics as the
 * reference evaluator (docs/engine.md "Window moves").
 */
export class MoveBook {
  private readonly rules: (MoveRule | undefined)[] = [];
  /** Per dense token index: its windows; undefined when it has no move rules. */
  private readonly tracks: (TokenWindows | undefined)[] = [];
  private readonly heap = new PauseHeap();

  /** Grows both dense arrays through `index` with holes filled, so they stay fast packed arrays, never dictionaries. */
  private reach(ruleId: number, tokenIndex: number): void {
    const rules = this.rules;
    while (rules.length <= ruleId) rules.push(undefined);
    const tracks = this.tracks;
    while (tracks.length <= tokenIndex) tracks.push(undefined);
  }

  has(ruleId: number): boolean {
    // In bounds first: every price rule's add asks too, and a read past the end is V8's slow path.
    return ruleId < this.rules.length && this.rules[ruleId] !== undefined;
  }

  /** Whether the token has move rules (the index skips `sample` otherwise). */
  follows(tokenIndex: number): boolean {
    return tokenIndex < this.tracks.length && this.tracks[tokenIndex] !== undefined;
  }

  /** `price`: the token's known price (NaN when none), the first price of a new window. */
  add(rule: CompiledRule, tokenIndex: number, price: number, nowMs: number): void {
    this.reach(rule.ruleId, tokenIndex);
    let track: WindowTrack | null = null;
    if (validMove(rule)) {
      track = (this.tracks[tokenIndex] ??= new TokenWindows()).track(windowMsOf(rule), price, nowMs);
      track.rules++;
    }
    const stored = new MoveRule(rule, tokenIndex, track, nowMs);
    this.rules[rule.ruleId] = stored;
    if (stored.enabled) this.activate(stored, nowMs, rule.moveHolding === true && !rule.oneTime);
  }

  remove(ruleId: number): void {
    const rule = this.rules[ruleId];
    if (rule === undefined) return;
    this.deactivate(rule);
    this.rules[ruleId] = undefined;
    // A track left without rules keeps its prices until the token's price is forgotten: a reload
    // takes a subscription's rules out and puts them back, and must not cut the windows short.
    if (rule.track !== null) rule.track.rules--;
  }

  /** Pause (false) or restart (true); a restart clears the Recurring pause and the holding. */
  setEnabled(ruleId: number, enabled: boolean, nowMs: number): void {
    const rule = this.rules[ruleId];
    if (rule === undefined || rule.enabled === enabled) return;
    rule.enabled = enabled;
    if (!enabled) {
      this.deactivate(rule);
      return;
    }
    rule.pauseEnd = -Infinity;
    this.activate(rule, nowMs);
  }

  /**
   * The token's windows lose their prices (what happened while it was unknown is no move), and
   * the windows no rule measures over any more go.
   */
  forget(tokenIndex: number): void {
    const windows = this.tracks[tokenIndex];
    if (windows === undefined) return;
    windows.tracks = windows.tracks.filter((t) => t.rules > 0);
    windows.clear();
    if (windows.tracks.length === 0) this.tracks[tokenIndex] = undefined;
  }

  /** A displayed price of the token: enters its windows, then fires the rules whose move it reaches. */
  sample(tokenIndex: number, price: number, nowMs: number, out: Firing[]): void {
    if (this.heap.n !== 0 && this.heap.keys[0] <= nowMs) this.endPauses(nowMs);
    const windows = this.tracks[tokenIndex]!;
    windows.push(nowMs, price);
    const tracks = windows.tracks;
    for (let i = 0; i < tracks.length; i++) {
      const track = tracks[i];
      const w = windows.measure(track, nowMs);
      const groups = track.groups;
      // As `moveOf` says, rounded once for the three kinds.
      const up = moveBetween(price, w.low);
      const down = moveBetween(w.high, price);
      for (let kind = 0; kind <= KIND_EITHER; kind++) {
        const group = groups[kind];
        if (group === null) continue;
        const move = kind === KIND_UP ? up : kind === KIND_DOWN ? down : up >= down ? up : down;
        if (group.stale || move >= group.minArmed || move < group.maxHolding) this.evaluate(track, group, kind, move, price, nowMs, out);
      }
    }
  }

  /** Re-arms the holding rules whose move no longer holds, then fires the armed ones it reaches. */
  private evaluate(track: WindowTrack, group: MoveGroup, kind: number, move: number, price: number, nowMs: number, out: Firing[]): void {
    const { armed, holding } = group;
    holding.settle();
    const from = holding.upperBound(move);
    if (from < holding.sortedN) {
      for (let i = from; i < holding.sortedN; i++) this.arm(this.rules[holding.id[i]]!, group, nowMs);
      holding.cut(from, holding.sortedN);
    }
    armed.settle();
    const hi = armed.upperBound(move);
    if (hi === 0) {
      this.cache(group);
      return;
    }
    // Every rule of the reached prefix leaves it: fired (holding or off), expired, or paused.
    const id = armed.id;
    for (let i = 0; i < hi; i++) {
      const rule = this.rules[id[i]]!;
      if (nowMs >= rule.expiresAtMs) {
        rule.state = OUT;
        continue;
      }
      if (nowMs < rule.pauseEnd) {
        rule.state = PAUSED;
        this.heap.push(rule.pauseEnd, rule.ruleId);
        continue;
      }
      out.push(moveFiring(rule, kind, price, track.extremes, nowMs));
      if (rule.oneTime) {
        rule.enabled = false;
        rule.state = OUT;
      } else {
        if (rule.intervalMs > 0) rule.pauseEnd = nowMs + rule.intervalMs;
        rule.state = HOLDING;
        holding.push(rule.threshold, rule.ruleId);
      }
    }
    armed.cut(0, hi);
    holding.settle();
    this.cache(group);
  }

  private cache(group: MoveGroup): void {
    const { armed, holding } = group;
    group.minArmed = armed.n !== 0 ? armed.t[0] : Infinity;
    group.maxHolding = holding.n !== 0 ? holding.t[holding.n - 1] : -Infinity;
    group.stale = false;
  }

  private activate(rule: MoveRule, nowMs: number, holding = false): void {
    if (rule.track === null || nowMs >= rule.expiresAtMs) return;
    const group = rule.track.group(rule.kind);
    if (holding) {
      rule.state = HOLDING;
      group.holding.push(rule.threshold, rule.ruleId);
      group.stale = true;
    } else this.arm(rule, group, nowMs);
  }

  /** Into the armed lane, or the pause heap while its Recurring pause lasts. */
  private arm(rule: MoveRule, group: MoveGroup, nowMs: number): void {
    if (nowMs < rule.pauseEnd) {
      rule.state = PAUSED;
      this.heap.push(rule.pauseEnd, rule.ruleId);
      return;
    }
    rule.state = ARMED;
    group.armed.push(rule.threshold, rule.ruleId);
    group.stale = true;
  }

  /** Rules whose pause ended join their armed lanes (entries of rules since gone or re-added are dropped). */
  private endPauses(nowMs: number): void {
    const heap = this.heap;
    while (heap.n !== 0 && heap.topKey() <= nowMs) {
      const key = heap.topKey();
      const rule = this.rules[heap.pop()];
      if (rule === undefined || rule.state !== PAUSED || rule.pauseEnd !== key) continue;
      rule.state = ARMED;
      const group = rule.track!.group(rule.kind);
      group.armed.push(rule.threshold, rule.ruleId);
      group.stale = true;
    }
  }

  /** Whether a rule fired and waits for its move to drop below its threshold (for a reload to hand back). */
  holding(ruleId: number): boolean {
    return this.rules[ruleId]?.state === HOLDING;
  }

  private deactivate(rule: MoveRule): void {
    const state = rule.state;
    rule.state = OUT;
    if (state === OUT || state === PAUSED) return;
    const group = rule.track!.group(rule.kind);
    (state === ARMED ? group.armed : group.holding).remove(rule.threshold, rule.ruleId);
    group.stale = true;
  }
}

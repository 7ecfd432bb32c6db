import { MOVE_WINDOW_MS, MOVE_WINDOWS, type MoveRuleType, type MoveWindow } from '../domain/enums.js';
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
  /** Entry i: its price at 2i, its `until` at 2i + 1, side by side so a tick reads one cache line. */
  buf = new Float64Array(16);
  tail = 0;

  constructor(private readonly lowest: boolean) {}

  get capacity(): number {
    return this.buf.length >> 1;
  }

  /**
   * Ends the previous price at `atMs` and drops the entries `price` dominates (it lasts longer and
   * is as extreme); answers where `price` goes. The previous price is always the last entry.
   */
  drop(atMs: number, price: number): number {
    const b = this.buf;
    let n = this.tail;
    if (n > 0) b[2 * n - 1] = atMs;
    while (n > 0 && (this.lowest ? b[2 * n - 2] >= price : b[2 * n - 2] <= price)) n--;
    return n;
  }

  put(n: number, price: number): void {
    this.buf[2 * n] = price;
    this.buf[2 * n + 1] = Infinity;
    this.tail = n + 1;
  }

  /** Full: drops the `from` entries no window reads any more, or doubles the buffer. */
  shift(from: number, n: number): void {
    if ((n - from) * 2 > this.capacity) {
      const buf = new Float64Array(this.buf.length * 2);
      for (let i = 2 * from; i < 2 * n; i++) buf[i - 2 * from] = this.buf[i];
      this.buf = buf;
    } else {
      this.buf.copyWithin(0, 2 * from, 2 * n);
    }
  }
}

/** The rules of one window length on one token watching one kind of move, by threshold. */
class MoveGroup {
  readonly armed = new Lane();
  readonly holding = new Lane();
}

// A tick reads, per window length of the token, its heads and per kind two bounds: they live in one
// Float64Array (`MoveBook.hot`), a block per token, so a tick that fires nothing touches a few
// cache lines instead of a chain of objects per group (issue #20: the window pass was 5× slower).
/** Window lengths, shortest first: a token's block has one slot per length, in this order. */
const WINDOW_MS = MOVE_WINDOWS.map((w) => MOVE_WINDOW_MS[w]).sort((a, b) => a - b);
/** Slot fields: the window in ms (0 while the token has no such window), its heads in the deques. */
const WIN = 0;
const LOW_HEAD = 1;
const HIGH_HEAD = 2;
/**
 * Then per kind: the lowest armed threshold (a move below it fires nothing; -Infinity when the
 * lanes changed and must be looked at) and the highest holding one (a move at or above it re-arms nothing).
 */
const MIN_ARMED = 3;
const MAX_HOLDING = 4;
const SLOT = 3 + 2 * (KIND_EITHER + 1);
const BLOCK = SLOT * WINDOW_MS.length;

/** One window length on one token: the rules measuring over it (its heads and bounds are in `MoveBook.hot`). */
class WindowTrack {
  readonly groups: (MoveGroup | null)[] = [null, null, null];
  /** Filled when a rule is looked at, for its firing. */
  readonly extremes: WindowExtremes = { low: NaN, lowAtMs: NaN, high: NaN, highAtMs: NaN };
  /** Rules in this book on this track, whatever their state: the track lives while any is there. */
  rules = 0;

  /** `at`: the slot's offset in the token's block. */
  constructor(readonly windowMs: number, readonly at: number) {}
}

/** A token's windows: the two deques they share and one track per window length (by slot). */
class TokenWindows {
  readonly low = new ExtremeDeque(true);
  readonly high = new ExtremeDeque(false);
  readonly slots: (WindowTrack | null)[] = WINDOW_MS.map(() => null);

  /** `base`: the token's block in `MoveBook.hot`. */
  constructor(readonly base: number) {}
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
 * kind two comparisons against bounds kept in one flat array, plus the rules that fire or re-arm.
 * Same semantics as the reference evaluator (docs/engine.md "Window moves").
 */
export class MoveBook {
  private readonly rules: (MoveRule | undefined)[] = [];
  /** Per dense token index: its windows; undefined when it has no move rules. */
  private readonly tracks: (TokenWindows | undefined)[] = [];
  private readonly heap = new PauseHeap();
  /** Per token with move rules, a block of `BLOCK` numbers (see `SLOT`); blocks of forgotten tokens are reused. */
  private hot = new Float64Array(BLOCK * 64);
  private blocks = 0;
  private readonly freeBlocks: number[] = [];

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
      track = this.track(this.tracks[tokenIndex] ??= this.newWindows(), windowMsOf(rule), price, nowMs);
      track.rules++;
    }
    const stored = new MoveRule(rule, tokenIndex, track, nowMs);
    this.rules[rule.ruleId] = stored;
    if (stored.enabled) this.activate(stored, nowMs, rule.moveHolding === true && !rule.oneTime);
  }

  private newWindows(): TokenWindows {
    let base = this.freeBlocks.pop();
    if (base === undefined) {
      base = this.blocks++ * BLOCK;
      if (base + BLOCK > this.hot.length) {
        const hot = new Float64Array(this.hot.length * 2);
        hot.set(this.hot);
        this.hot = hot;
      }
    }
    this.hot.fill(0, base, base + BLOCK);
    return new TokenWindows(base);
  }

  /** A new window length starts with the price displayed now (the last entry), when one is known. */
  private track(windows: TokenWindows, windowMs: number, price: number, nowMs: number): WindowTrack {
    const slot = WINDOW_MS.indexOf(windowMs);
    const known = windows.slots[slot];
    if (known !== null) return known;
    if (windows.low.tail === 0 && price === price) this.push(windows, nowMs, price);
    const at = windows.base + slot * SLOT;
    const track = new WindowTrack(windowMs, at);
    const hot = this.hot;
    hot[at + WIN] = windowMs;
    hot[at + LOW_HEAD] = Math.max(0, windows.low.tail - 1);
    hot[at + HIGH_HEAD] = Math.max(0, windows.high.tail - 1);
    for (let kind = 0; kind <= KIND_EITHER; kind++) this.cache(track, kind, null);
    windows.slots[slot] = track;
    return track;
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
    const hot = this.hot;
    let left = 0;
    for (let slot = 0; slot < windows.slots.length; slot++) {
      const track = windows.slots[slot];
      if (track === null) continue;
      if (track.rules > 0) {
        hot[track.at + LOW_HEAD] = 0;
        hot[track.at + HIGH_HEAD] = 0;
        left++;
      } else {
        hot.fill(0, track.at, track.at + SLOT);
        windows.slots[slot] = null;
      }
    }
    windows.low.tail = 0;
    windows.high.tail = 0;
    if (left === 0) {
      this.tracks[tokenIndex] = undefined;
      this.freeBlocks.push(windows.base);
    }
  }

  /** Enters a price into the token's deques, moving the heads of the windows whose extreme it drops. */
  private push(windows: TokenWindows, atMs: number, price: number): void {
    const hot = this.hot;
    const base = windows.base;
    const end = base + BLOCK;
    const low = windows.low;
    let n = low.drop(atMs, price);
    if (n === low.capacity) {
      let from = n;
      for (let a = base; a < end; a += SLOT) if (hot[a + WIN] !== 0) from = Math.min(from, hot[a + LOW_HEAD]);
      low.shift(from, n);
      for (let a = base; a < end; a += SLOT) if (hot[a + WIN] !== 0) hot[a + LOW_HEAD] -= from;
      n -= from;
    }
    low.put(n, price);
    const high = windows.high;
    let m = high.drop(atMs, price);
    if (m === high.capacity) {
      let from = m;
      for (let a = base; a < end; a += SLOT) if (hot[a + WIN] !== 0) from = Math.min(from, hot[a + HIGH_HEAD]);
      high.shift(from, m);
      for (let a = base; a < end; a += SLOT) if (hot[a + WIN] !== 0) hot[a + HIGH_HEAD] -= from;
      m -= from;
    }
    high.put(m, price);
    // A window whose extreme was dropped has the new price as its extreme.
    for (let a = base; a < end; a += SLOT) {
      if (hot[a + LOW_HEAD] > n) hot[a + LOW_HEAD] = n;
      if (hot[a + HIGH_HEAD] > m) hot[a + HIGH_HEAD] = m;
    }
  }

  /** A displayed price of the token: enters its windows, then fires the rules whose move it reaches. */
  sample(tokenIndex: number, price: number, nowMs: number, out: Firing[]): void {
    if (this.heap.n !== 0 && this.heap.keys[0] <= nowMs) this.endPauses(nowMs);
    const windows = this.tracks[tokenIndex]!;
    this.push(windows, nowMs, price);
    const hot = this.hot;
    const lowBuf = windows.low.buf;
    const highBuf = windows.high.buf;
    const lastLow = windows.low.tail - 1;
    const lastHigh = windows.high.tail - 1;
    for (let a = windows.base, end = a + BLOCK; a < end; a += SLOT) {
      const windowMs = hot[a + WIN];
      if (windowMs === 0) continue;
      // Moves the heads past the prices that stopped being displayed at or before the window's start.
      const cutoff = nowMs - windowMs;
      let h = hot[a + LOW_HEAD];
      while (h < lastLow && lowBuf[2 * h + 1] <= cutoff) h++;
      hot[a + LOW_HEAD] = h;
      let g = hot[a + HIGH_HEAD];
      while (g < lastHigh && highBuf[2 * g + 1] <= cutoff) g++;
      hot[a + HIGH_HEAD] = g;
      // As `moveOf` says, rounded once for the three kinds.
      const up = moveBetween(price, lowBuf[2 * h]);
      const down = moveBetween(highBuf[2 * g], price);
      const either = up >= down ? up : down;
      const upFires = up >= hot[a + MIN_ARMED] || up < hot[a + MAX_HOLDING];
      const downFires = down >= hot[a + MIN_ARMED + 2] || down < hot[a + MAX_HOLDING + 2];
      const eitherFires = either >= hot[a + MIN_ARMED + 4] || either < hot[a + MAX_HOLDING + 4];
      if (!(upFires || downFires || eitherFires)) continue;
      const track = windows.slots[(a - windows.base) / SLOT]!;
      const w = track.extremes;
      w.low = lowBuf[2 * h];
      w.lowAtMs = lowBuf[2 * h + 1];
      w.high = highBuf[2 * g];
      w.highAtMs = highBuf[2 * g + 1];
      if (upFires) this.evaluate(track, KIND_UP, up, price, nowMs, out);
      if (downFires) this.evaluate(track, KIND_DOWN, down, price, nowMs, out);
      if (eitherFires) this.evaluate(track, KIND_EITHER, either, price, nowMs, out);
    }
  }

  /** Re-arms the holding rules whose move no longer holds, then fires the armed ones it reaches. */
  private evaluate(track: WindowTrack, kind: number, move: number, price: number, nowMs: number, out: Firing[]): void {
    const group = track.groups[kind]!;
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
      this.cache(track, kind, group);
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
    this.cache(track, kind, group);
  }

  /** Writes the group's bounds for `sample` once its lanes are settled (none: nothing to look at). */
  private cache(track: WindowTrack, kind: number, group: MoveGroup | null): void {
    const at = track.at + MIN_ARMED + 2 * kind;
    this.hot[at] = group !== null && group.armed.n !== 0 ? group.armed.t[0] : Infinity;
    this.hot[at + 1] = group !== null && group.holding.n !== 0 ? group.holding.t[group.holding.n - 1] : -Infinity;
  }

  /** The group's lanes changed: its next price looks at them (and caches the bounds again). */
  private touch(track: WindowTrack, kind: number): void {
    this.hot[track.at + MIN_ARMED + 2 * kind] = -Infinity;
  }

  private group(track: WindowTrack, kind: number): MoveGroup {
    return (track.groups[kind] ??= new MoveGroup());
  }

  private activate(rule: MoveRule, nowMs: number, holding = false): void {
    const track = rule.track;
    if (track === null || nowMs >= rule.expiresAtMs) return;
    const group = this.group(track, rule.kind);
    if (holding) {
      rule.state = HOLDING;
      group.holding.push(rule.threshold, rule.ruleId);
      this.touch(track, rule.kind);
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
    this.touch(rule.track!, rule.kind);
  }

  /** Rules whose pause ended join their armed lanes (entries of rules since gone or re-added are dropped). */
  private endPauses(nowMs: number): void {
    const heap = this.heap;
    while (heap.n !== 0 && heap.topKey() <= nowMs) {
      const key = heap.topKey();
      const rule = this.rules[heap.pop()];
      if (rule === undefined || rule.state !== PAUSED || rule.pauseEnd !== key) continue;
      rule.state = ARMED;
      this.group(rule.track!, rule.kind).armed.push(rule.threshold, rule.ruleId);
      this.touch(rule.track!, rule.kind);
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
    const group = this.group(rule.track!, rule.kind);
    (state === ARMED ? group.armed : group.holding).remove(rule.threshold, rule.ruleId);
    this.touch(rule.track!, rule.kind);
  }
}

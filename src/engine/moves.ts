import { MOVE_WINDOW_MS, MOVE_WINDOWS, type MoveRuleType, type MoveWindow } from '../domain/enums.js';
import { Lane } from './lane.js';
import { PauseHeap } from './pause-heap.js';
import { RegionPool } from './region-pool.js';
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

// A token's lowest and highest prices are two monotonic deques that every window length of the
// token reads from a head of its own. A price is displayed from its time until the next one arrives
// (`until`), so it stays in a window until the next one is older than the window: a price held for
// two hours is still the window's start an hour ago. Entries run from older and more extreme to
// newer and less so; a window's extreme is the entry at its head. Each deque is a region of
// `MoveBook.pool` (entry i: its price at 2i, its `until` at 2i + 1), found from the token's block.

/** Entries a deque holds at first; it doubles when its live entries fill more than half of it. */
const FIRST_CAPACITY = 8;

// What a price reads lives in one Float64Array (`MoveBook.hot`), a block per token: the deques' ends
// and, per window length, its heads with their price and `until` copied out and per kind two bounds.
// A price inside the token's quiet band reads the header's line and writes the deques' tails; any
// other reads the whole block, and a deque only to drop the entries the price dominates or to move
// a head whose entry left its window (issue #20: a chain of objects and buffers per token made the
// window pass 3× as costly as a price-only one).
/**
 * Block header. First what a quiet price reads: its quiet band (`QUIET_LO`, `QUIET_HI`: a price
 * strictly inside fires and re-arms nothing and is no window's new extreme; NaN when not worked
 * out) until `QUIET_UNTIL` (before any head's entry leaves its window), the last price (the tail of
 * both deques), per deque its region's offset in the pool and its entries; then the deques'
 * capacities and `ON_LAST`: bits of the heads on the last price (bit 2·slot: low, 2·slot + 1: high),
 * whose `until` the next price sets.
 */
const QUIET_LO = 0;
const QUIET_HI = 1;
const QUIET_UNTIL = 2;
const LAST = 3;
const LOW_AT = 4;
const LOW_N = 5;
const HIGH_AT = 6;
const HIGH_N = 7;
const LOW_CAP = 8;
const HIGH_CAP = 9;
const ON_LAST = 10;
const HEADER = 11;
/**
 * How far inside a quiet band's ends a price must be: a move is rounded to 1e-9 (`moveBetween`)
 * and the band's ends are sums, so a price this close to one is looked at in full.
 */
const QUIET_MARGIN = 1e-7;
/** Window lengths, shortest first: a token's block has one slot per length, in this order. */
const WINDOW_MS = MOVE_WINDOWS.map((w) => MOVE_WINDOW_MS[w]).sort((a, b) => a - b);
/**
 * Slot fields: the window in ms (0 while the token has no such window); per deque its head, the
 * head entry's price and `until` (Infinity while it is the price now, NaN while the deque is empty).
 */
const WIN = 0;
const LOW_HEAD = 1;
const LOW = 2;
const LOW_UNTIL = 3;
const HIGH_HEAD = 4;
const HIGH = 5;
const HIGH_UNTIL = 6;
/**
 * Then per kind: the lowest armed threshold (a move below it fires nothing; -Infinity when the
 * lanes changed and must be looked at) and the highest holding one (a move at or above it re-arms nothing).
 */
const MIN_ARMED = 7;
const MAX_HOLDING = 8;
const SLOT = MIN_ARMED + 2 * (KIND_EITHER + 1);
const BLOCK = HEADER + SLOT * WINDOW_MS.length;

/** The rules of one window length on one token watching one kind of move, by threshold. */
class MoveGroup {
  readonly armed = new Lane();
  readonly holding = new Lane();
}

/** One window length on one token: the rules measuring over it (its heads and bounds are in `MoveBook.hot`). */
class WindowTrack {
  readonly groups: (MoveGroup | null)[] = [null, null, null];
  /** Filled when a rule is looked at, for its firing. */
  readonly extremes: WindowExtremes = { low: NaN, lowAtMs: NaN, high: NaN, highAtMs: NaN };
  /** Rules in this book on this track, whatever their state: the track lives while any is there. */
  rules = 0;

  /** `at`: the slot's offset in `MoveBook.hot`; `base`: its token's block. */
  constructor(readonly windowMs: number, readonly at: number, readonly base: number) {}
}

/** A token's tracks, one per window length (by slot), for the paths that look at rules. */
class TokenWindows {
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
 * pause in a heap. A price inside the token's quiet band costs one push onto each deque; another,
 * per window length, its heads and per kind two comparisons against bounds kept in one flat array,
 * plus the rules that fire or re-arm.
 * Same semantics as the reference evaluator (docs/engine.md "Window moves").
 */
export class MoveBook {
  private readonly rules: (MoveRule | undefined)[] = [];
  /** Per dense token index: its tracks; undefined when it has no move rules. */
  private readonly tracks: (TokenWindows | undefined)[] = [];
  /** Per dense token index: its block in `hot`, -1 when it has no move rules (a price reads no object). */
  private blockOf = new Int32Array(1024).fill(-1);
  private readonly heap = new PauseHeap();
  /** Per token with move rules, a block of `BLOCK` numbers (see `HEADER`, `SLOT`); blocks of forgotten tokens are reused. */
  private hot = new Float64Array(BLOCK * 64);
  private blocks = 0;
  private readonly freeBlocks: number[] = [];
  /** Every token's two deques. */
  private readonly pool = new RegionPool();

  /** Grows the dense arrays through `index` with holes filled, so they stay fast packed arrays, never dictionaries. */
  private reach(ruleId: number, tokenIndex: number): void {
    const rules = this.rules;
    while (rules.length <= ruleId) rules.push(undefined);
    const tracks = this.tracks;
    while (tracks.length <= tokenIndex) tracks.push(undefined);
    if (tokenIndex >= this.blockOf.length) {
      let length = this.blockOf.length * 2;
      while (length <= tokenIndex) length *= 2;
      const blockOf = new Int32Array(length).fill(-1);
      blockOf.set(this.blockOf);
      this.blockOf = blockOf;
    }
  }

  has(ruleId: number): boolean {
    // In bounds first: every price rule's add asks too, and a read past the end is V8's slow path.
    return ruleId < this.rules.length && this.rules[ruleId] !== undefined;
  }

  /** The dense index of a held rule's token. */
  tokenOf(ruleId: number): number {
    return this.rules[ruleId]!.tokenIndex;
  }

  /** Whether the token has move rules (the index skips `sample` otherwise). */
  follows(tokenIndex: number): boolean {
    return tokenIndex < this.blockOf.length && this.blockOf[tokenIndex] >= 0;
  }

  /** `price`: the token's known price (NaN when none), the first price of a new window. */
  add(rule: CompiledRule, tokenIndex: number, price: number, nowMs: number): void {
    this.reach(rule.ruleId, tokenIndex);
    let track: WindowTrack | null = null;
    if (validMove(rule)) {
      track = this.track(this.tracks[tokenIndex] ??= this.newWindows(tokenIndex), windowMsOf(rule), price, nowMs);
      track.rules++;
    }
    const stored = new MoveRule(rule, tokenIndex, track, nowMs);
    this.rules[rule.ruleId] = stored;
    if (stored.enabled) this.activate(stored, nowMs, rule.moveHolding === true && !rule.oneTime);
  }

  private newWindows(tokenIndex: number): TokenWindows {
    let base = this.freeBlocks.pop();
    if (base === undefined) {
      base = this.blocks++ * BLOCK;
      if (base + BLOCK > this.hot.length) {
        const hot = new Float64Array(this.hot.length * 2);
        hot.set(this.hot);
        this.hot = hot;
      }
    }
    const low = this.pool.alloc(2 * FIRST_CAPACITY);
    const high = this.pool.alloc(2 * FIRST_CAPACITY);
    const hot = this.hot;
    hot.fill(0, base, base + BLOCK);
    hot[base + LOW_AT] = low;
    hot[base + LOW_CAP] = FIRST_CAPACITY;
    hot[base + HIGH_AT] = high;
    hot[base + HIGH_CAP] = FIRST_CAPACITY;
    hot[base + LAST] = NaN;
    hot[base + QUIET_LO] = NaN;
    this.blockOf[tokenIndex] = base;
    return new TokenWindows(base);
  }

  /** A new window length starts with the price displayed now (the last entry), when one is known. */
  private track(windows: TokenWindows, windowMs: number, price: number, nowMs: number): WindowTrack {
    const slot = WINDOW_MS.indexOf(windowMs);
    const known = windows.slots[slot];
    if (known !== null) return known;
    const base = windows.base;
    if (this.hot[base + LOW_N] === 0 && price === price) this.push(base, nowMs, price);
    const at = base + HEADER + slot * SLOT;
    const track = new WindowTrack(windowMs, at, base);
    const hot = this.hot;
    const data = this.pool.data;
    hot[at + WIN] = windowMs;
    // Both heads on the last entry, the price now (none yet: the next push puts one there).
    const low = Math.max(0, hot[base + LOW_N] - 1);
    const lowEntry = hot[base + LOW_AT] + 2 * low;
    hot[at + LOW_HEAD] = low;
    hot[at + LOW] = hot[base + LOW_N] === 0 ? NaN : data[lowEntry];
    hot[at + LOW_UNTIL] = hot[base + LOW_N] === 0 ? NaN : data[lowEntry + 1];
    const high = Math.max(0, hot[base + HIGH_N] - 1);
    const highEntry = hot[base + HIGH_AT] + 2 * high;
    hot[at + HIGH_HEAD] = high;
    hot[at + HIGH] = hot[base + HIGH_N] === 0 ? NaN : data[highEntry];
    hot[at + HIGH_UNTIL] = hot[base + HIGH_N] === 0 ? NaN : data[highEntry + 1];
    for (let kind = 0; kind <= KIND_EITHER; kind++) this.cache(track, kind, null);
    hot[base + QUIET_LO] = NaN;
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
    const base = windows.base;
    let left = 0;
    for (let slot = 0; slot < windows.slots.length; slot++) {
      const track = windows.slots[slot];
      if (track === null) continue;
      if (track.rules > 0) {
        // As a new window on empty deques: the next price is its first entry.
        hot.fill(NaN, track.at + LOW_HEAD, track.at + HIGH_UNTIL + 1);
        hot[track.at + LOW_HEAD] = 0;
        hot[track.at + HIGH_HEAD] = 0;
        left++;
      } else {
        hot.fill(0, track.at, track.at + SLOT);
        windows.slots[slot] = null;
      }
    }
    hot[base + LOW_N] = 0;
    hot[base + HIGH_N] = 0;
    hot[base + LAST] = NaN;
    hot[base + QUIET_LO] = NaN;
    if (left === 0) {
      this.pool.release(hot[base + LOW_AT], 2 * hot[base + LOW_CAP]);
      this.pool.release(hot[base + HIGH_AT], 2 * hot[base + HIGH_CAP]);
      this.tracks[tokenIndex] = undefined;
      this.blockOf[tokenIndex] = -1;
      this.freeBlocks.push(base);
    }
  }

  /**
   * Enters a price into the token's deques (the block at `base`): the previous price, the last entry
   * of both, ends at `atMs`; each deque drops the entries the price dominates (it lasts longer and is
   * as extreme). The heads on a dropped entry come to the new one; a head on the previous price
   * learns its `until`.
   */
  private push(base: number, atMs: number, price: number, quiet = false): void {
    const hot = this.hot;
    const last = hot[base + LAST];
    hot[base + LAST] = price;
    let data = this.pool.data;
    const oldLow = hot[base + LOW_N];
    let n = oldLow;
    let keptLow = -1;
    if (n > 0) {
      const at = hot[base + LOW_AT];
      if (last >= price) {
        n--;
        while (n > 0 && data[at + 2 * n - 2] >= price) n--;
      } else {
        data[at + 2 * n - 1] = atMs;
        keptLow = n - 1;
      }
    }
    if (n === hot[base + LOW_CAP]) {
      // Full and nothing dropped: the entries before every head go (the deque doubles when more than half is left).
      const from = this.shift(base, LOW_AT, LOW_CAP, LOW_HEAD, n);
      n -= from;
      keptLow -= from;
      data = this.pool.data;
    }
    let at = hot[base + LOW_AT] + 2 * n;
    data[at] = price;
    data[at + 1] = Infinity;
    hot[base + LOW_N] = n + 1;

    const oldHigh = hot[base + HIGH_N];
    let m = oldHigh;
    let keptHigh = -1;
    if (m > 0) {
      const at = hot[base + HIGH_AT];
      if (last <= price) {
        m--;
        while (m > 0 && data[at + 2 * m - 2] <= price) m--;
      } else {
        data[at + 2 * m - 1] = atMs;
        keptHigh = m - 1;
      }
    }
    if (m === hot[base + HIGH_CAP]) {
      const from = this.shift(base, HIGH_AT, HIGH_CAP, HIGH_HEAD, m);
      m -= from;
      keptHigh -= from;
      data = this.pool.data;
    }
    at = hot[base + HIGH_AT] + 2 * m;
    data[at] = price;
    data[at + 1] = Infinity;
    hot[base + HIGH_N] = m + 1;
    // Inside the quiet band no head is on the previous price or on an entry the price drops (a head
    // left on an extreme past its window is still below, or above, every price in the band).
    if (quiet) return;
    for (let a = base + HEADER, end = base + BLOCK; a < end; a += SLOT) {
      if (hot[a + WIN] === 0) continue;
      const h = hot[a + LOW_HEAD];
      if (h >= n) {
        hot[a + LOW_HEAD] = n;
        hot[a + LOW] = price;
        hot[a + LOW_UNTIL] = Infinity;
      } else if (h === keptLow) {
        hot[a + LOW_UNTIL] = atMs;
      }
      const g = hot[a + HIGH_HEAD];
      if (g >= m) {
        hot[a + HIGH_HEAD] = m;
        hot[a + HIGH] = price;
        hot[a + HIGH_UNTIL] = Infinity;
      } else if (g === keptHigh) {
        hot[a + HIGH_UNTIL] = atMs;
      }
    }
  }

  /**
   * A full deque (`n` entries; its offset at `field`, capacity at `capField`, heads at `head`) drops the entries no window
   * reads any more, moving to a region twice the size when more than half are left; answers how
   * many were dropped (every head moved back by as many).
   */
  private shift(base: number, field: number, capField: number, head: number, n: number): number {
    const hot = this.hot;
    const end = base + BLOCK;
    let from = n;
    for (let a = base + HEADER; a < end; a += SLOT) if (hot[a + WIN] !== 0) from = Math.min(from, hot[a + head]);
    const at = hot[base + field];
    const capacity = hot[base + capField];
    if ((n - from) * 2 > capacity) {
      const moved = this.pool.alloc(4 * capacity);
      const data = this.pool.data;
      data.copyWithin(moved, at + 2 * from, at + 2 * n);
      this.pool.release(at, 2 * capacity);
      hot[base + field] = moved;
      hot[base + capField] = 2 * capacity;
    } else {
      this.pool.data.copyWithin(at, at + 2 * from, at + 2 * n);
    }
    for (let a = base + HEADER; a < end; a += SLOT) if (hot[a + WIN] !== 0) hot[a + head] -= from;
    return from;
  }

  /** A displayed price of the token: enters its windows, then fires the rules whose move it reaches. */
  sample(tokenIndex: number, price: number, nowMs: number, out: Firing[]): void {
    if (this.heap.n !== 0 && this.heap.keys[0] <= nowMs) this.endPauses(nowMs);
    const base = this.blockOf[tokenIndex];
    const hot = this.hot;
    if (price > hot[base + QUIET_LO] && price < hot[base + QUIET_HI] && nowMs < hot[base + QUIET_UNTIL]) {
      if (hot[base + ON_LAST] !== 0) this.endLast(base, nowMs);
      this.push(base, nowMs, price, true);
      return;
    }
    this.push(base, nowMs, price);
    for (let a = base + HEADER, end = base + BLOCK; a < end; a += SLOT) {
      const windowMs = hot[a + WIN];
      if (windowMs === 0) continue;
      // Moves the heads past the prices that stopped being displayed at or before the window's start.
      const cutoff = nowMs - windowMs;
      if (hot[a + LOW_UNTIL] <= cutoff) this.expire(a + LOW_HEAD, base + LOW_AT, cutoff);
      if (hot[a + HIGH_UNTIL] <= cutoff) this.expire(a + HIGH_HEAD, base + HIGH_AT, cutoff);
      // As `moveOf` says, rounded once for the three kinds.
      const up = moveBetween(price, hot[a + LOW]);
      const down = moveBetween(hot[a + HIGH], price);
      const either = up >= down ? up : down;
      const upFires = up >= hot[a + MIN_ARMED] || up < hot[a + MAX_HOLDING];
      const downFires = down >= hot[a + MIN_ARMED + 2] || down < hot[a + MAX_HOLDING + 2];
      const eitherFires = either >= hot[a + MIN_ARMED + 4] || either < hot[a + MAX_HOLDING + 4];
      if (!(upFires || downFires || eitherFires)) continue;
      const track = this.tracks[tokenIndex]!.slots[(a - base - HEADER) / SLOT]!;
      const w = track.extremes;
      w.low = hot[a + LOW];
      w.lowAtMs = hot[a + LOW_UNTIL];
      w.high = hot[a + HIGH];
      w.highAtMs = hot[a + HIGH_UNTIL];
      if (upFires) this.evaluate(track, KIND_UP, up, price, nowMs, out);
      if (downFires) this.evaluate(track, KIND_DOWN, down, price, nowMs, out);
      if (eitherFires) this.evaluate(track, KIND_EITHER, either, price, nowMs, out);
    }
    this.settleQuiet(base, price);
  }

  /**
   * Works out the token's quiet band after a price looked at in full: the prices strictly inside
   * every window's extremes (so no head moves or learns its `until`) whose moves stay, for every
   * kind, at or above its highest holding threshold and below its lowest armed one. Each move is
   * then linear in the price, so each bound is a price; the margin keeps the rounding of moves out.
   * Moves By holding rules allow both ends of a range: the band keeps the side the price is on.
   * The band holds until the first head's entry could leave its window (1 ms early, for rounding),
   * or, in a window without holding rules, one window later (`quietReach`);
   * the heads on the price now (an extreme: `until` Infinity) are noted, for the next price to end.
   */
  private settleQuiet(base: number, price: number): void {
    const hot = this.hot;
    let lo = -Infinity;
    let hi = Infinity;
    let until = Infinity;
    let onLast = 0;
    for (let slot = 0, a = base + HEADER; slot < WINDOW_MS.length; slot++, a += SLOT) {
      const windowMs = hot[a + WIN];
      if (windowMs === 0) continue;
      if (hot[a + LOW_UNTIL] === Infinity) onLast |= 1 << (2 * slot);
      if (hot[a + HIGH_UNTIL] === Infinity) onLast |= 2 << (2 * slot);
      const low = hot[a + LOW];
      const high = hot[a + HIGH];
      lo = Math.max(lo, low + QUIET_MARGIN, low + hot[a + MAX_HOLDING] + QUIET_MARGIN, high - hot[a + MIN_ARMED + 2] + QUIET_MARGIN, high - hot[a + MIN_ARMED + 4] + QUIET_MARGIN);
      hi = Math.min(hi, high - QUIET_MARGIN, low + hot[a + MIN_ARMED] - QUIET_MARGIN, high - hot[a + MAX_HOLDING + 2] - QUIET_MARGIN, low + hot[a + MIN_ARMED + 4] - QUIET_MARGIN);
      const holdingEither = hot[a + MAX_HOLDING + 4];
      if (holdingEither !== -Infinity) {
        if (price >= low + holdingEither + QUIET_MARGIN) lo = Math.max(lo, low + holdingEither + QUIET_MARGIN);
        else if (price <= high - holdingEither - QUIET_MARGIN) hi = Math.min(hi, high - holdingEither - QUIET_MARGIN);
        else lo = Infinity;
      }
      const reach = this.quietReach(a, windowMs);
      until = Math.min(until, hot[a + LOW_UNTIL] + reach, hot[a + HIGH_UNTIL] + reach);
    }
    hot[base + QUIET_LO] = lo;
    hot[base + QUIET_HI] = hi;
    hot[base + QUIET_UNTIL] = until;
    hot[base + ON_LAST] = onLast;
  }

  /**
   * How long after a head's entry was last displayed the band may last (the slot at `a`). With a
   * holding rule, until 1 ms before the entry leaves the window: the extreme moving in would
   * shrink the move, which re-arms. Without, one window longer: an extreme leaving only shrinks
   * moves, so it cannot make an armed rule fire, and the next price looked at in full moves the head
   * past it (`expire` reads the deque's times, which quiet prices keep); the bound keeps a deque
   * within two windows of prices.
   */
  private quietReach(a: number, windowMs: number): number {
    const hot = this.hot;
    const holds = hot[a + MAX_HOLDING] !== -Infinity || hot[a + MAX_HOLDING + 2] !== -Infinity || hot[a + MAX_HOLDING + 4] !== -Infinity;
    return holds ? windowMs - 1 : 2 * windowMs - 1;
  }

  /**
   * A quiet price replaces the one the `ON_LAST` heads are on: they stay (it is no new extreme)
   * and their entry's `until` is now, so the band lasts no longer than their window from now.
   */
  private endLast(base: number, nowMs: number): void {
    const hot = this.hot;
    const onLast = hot[base + ON_LAST];
    let until = hot[base + QUIET_UNTIL];
    for (let slot = 0; slot < WINDOW_MS.length; slot++) {
      const at = base + HEADER + slot * SLOT;
      if ((onLast & (1 << (2 * slot))) !== 0) hot[at + LOW_UNTIL] = nowMs;
      if ((onLast & (2 << (2 * slot))) !== 0) hot[at + HIGH_UNTIL] = nowMs;
      if ((onLast & (3 << (2 * slot))) !== 0) until = Math.min(until, nowMs + this.quietReach(at, WINDOW_MS[slot]));
    }
    hot[base + QUIET_UNTIL] = until;
    hot[base + ON_LAST] = 0;
  }

  /**
   * Moves a head (its index at `head`, then its price and `until`) past the entries that stopped
   * being displayed at or before `cutoff`, never past the last one (the deque's fields at `field`).
   */
  private expire(head: number, field: number, cutoff: number): void {
    const hot = this.hot;
    const data = this.pool.data;
    const at = hot[field];
    const last = hot[field + 1] - 1;
    let h = hot[head];
    while (h < last && data[at + 2 * h + 1] <= cutoff) h++;
    hot[head] = h;
    hot[head + 1] = data[at + 2 * h];
    hot[head + 2] = data[at + 2 * h + 1];
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
    this.hot[track.base + QUIET_LO] = NaN;
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

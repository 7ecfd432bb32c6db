/**
 * Thresholds with their rule ids, sorted ascending in [0, sortedN) plus an unsorted tail of recent
 * inserts that `settle` sorts and merges in O(n). Bulk loads append, so loading stays O(n log n).
 */
// Shared by every lane until its first push: most lanes of a token hold a rule or two, many none
// (a window-move group's holding lane until a firing), and an empty typed array costs ~200 bytes.
const NO_THRESHOLDS = new Float64Array(0);
const NO_IDS = new Int32Array(0);
/**
 * Unsorted inserts sorted in place by insertion while that shifts few entries (one insert, or a few
 * into a short lane); more by a sort and a merge (O(n)), which allocates.
 */
const SMALL_TAIL = 8;
const SMALL_SHIFTS = 512;

export class Lane {
  t = NO_THRESHOLDS;
  id = NO_IDS;
  n = 0;
  sortedN = 0;

  push(threshold: number, ruleId: number): void {
    if (this.n === this.t.length) this.grow();
    this.t[this.n] = threshold;
    this.id[this.n] = ruleId;
    this.n++;
  }

  get settled(): boolean {
    return this.sortedN === this.n;
  }

  settle(): void {
    const m = this.sortedN;
    const n = this.n;
    if (m === n) return;
    const { t, id } = this;
    if (n - m === 1 || (n - m <= SMALL_TAIL && (n - m) * m <= SMALL_SHIFTS)) {
      // A few inserts (a window-move firing moves its rule into the holding lane): in place, with
      // no arrays to allocate; each goes after the equal thresholds, as the merge below puts it.
      for (let k = m; k < n; k++) {
        const x = t[k];
        const xid = id[k];
        let j = k;
        for (; j > 0 && t[j - 1] > x; j--) {
          t[j] = t[j - 1];
          id[j] = id[j - 1];
        }
        t[j] = x;
        id[j] = xid;
      }
      this.sortedN = n;
      return;
    }
    const order = new Int32Array(n - m);
    for (let i = 0; i < order.length; i++) order[i] = m + i;
    order.sort((a, b) => (t[a]) - (t[b]));
    const tailT = Float64Array.from(order, (i) => t[i]);
    const tailId = Int32Array.from(order, (i) => id[i]);
    for (let i = m - 1, j = tailT.length - 1, w = n - 1; j >= 0; w--) {
      if (i >= 0 && (t[i]) > (tailT[j])) {
        t[w] = t[i];
        id[w] = id[i--];
      } else {
        t[w] = tailT[j];
        id[w] = tailId[j--];
      }
    }
    this.sortedN = n;
  }

  /** First sorted index whose threshold is >= x. */
  lowerBound(x: number): number {
    let lo = 0;
    let hi = this.sortedN;
    const t = this.t;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((t[mid]) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First sorted index whose threshold is > x. */
  upperBound(x: number): number {
    let lo = 0;
    let hi = this.sortedN;
    const t = this.t;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((t[mid]) <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  remove(threshold: number, ruleId: number): boolean {
    for (let i = this.lowerBound(threshold); i < this.sortedN && this.t[i] === threshold; i++) {
      if (this.id[i] !== ruleId) continue;
      this.t.copyWithin(i, i + 1, this.n);
      this.id.copyWithin(i, i + 1, this.n);
      this.sortedN--;
      this.n--;
      return true;
    }
    for (let i = this.sortedN; i < this.n; i++) {
      if (this.id[i] !== ruleId) continue;
      this.n--;
      this.t[i] = this.t[this.n];
      this.id[i] = this.id[this.n];
      return true;
    }
    return false;
  }

  /** Drops the sorted slots [kept, end) after an in-place compaction of a fired range. */
  cut(kept: number, end: number): void {
    if (kept === end) return;
    this.t.copyWithin(kept, end, this.n);
    this.id.copyWithin(kept, end, this.n);
    this.n -= end - kept;
    this.sortedN -= end - kept;
  }

  private grow(): void {
    const t = new Float64Array(Math.max(4, this.t.length * 2));
    const id = new Int32Array(Math.max(4, this.id.length * 2));
    t.set(this.t);
    id.set(this.id);
    this.t = t;
    this.id = id;
  }
}

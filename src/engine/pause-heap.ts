/** Min-heap of (pause end, rule id). Stale entries are left in place and skipped by the caller. */
export class PauseHeap {
  keys = new Float64Array(64);
  ids = new Int32Array(64);
  n = 0;

  push(key: number, ruleId: number): void {
    if (this.n === this.keys.length) this.grow();
    const { keys, ids } = this;
    let i = this.n++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((keys[parent]) <= key) break;
      keys[i] = keys[parent];
      ids[i] = ids[parent];
      i = parent;
    }
    keys[i] = key;
    ids[i] = ruleId;
  }

  /** Smallest key; only valid when n > 0. */
  topKey(): number {
    return this.keys[0];
  }

  /** Removes the smallest entry and returns its rule id; only valid when n > 0. */
  pop(): number {
    const { keys, ids } = this;
    const top = ids[0];
    const n = --this.n;
    const key = keys[n];
    const id = ids[n];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && (keys[child + 1]) < (keys[child])) child++;
      if ((keys[child]) >= key) break;
      keys[i] = keys[child];
      ids[i] = ids[child];
      i = child;
    }
    keys[i] = key;
    ids[i] = id;
    return top;
  }

  private grow(): void {
    const keys = new Float64Array(this.keys.length * 2);
    const ids = new Int32Array(this.ids.length * 2);
    keys.set(this.keys);
    ids.set(this.ids);
    this.keys = keys;
    this.ids = ids;
  }
}

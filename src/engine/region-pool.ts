/**
 * Regions of one shared `Float64Array`, in power-of-two sizes, with a free list per size. The
 * window-move deques of every token live here, so a tick reaches a deque's tail through an offset
 * kept in the token's hot block: one cache miss, where a typed array per deque costs two (its object,
 * then its store) behind the object holding it.
 */
export class RegionPool {
  data = new Float64Array(1024);
  private used = 0;
  /** By log2 of the size: offsets of freed regions of that size. */
  private readonly free: number[][] = [];

  /** A region of `size` numbers (a power of two); its offset, valid until it is released. */
  alloc(size: number): number {
    const list = this.free[Math.log2(size)];
    const reused = list?.pop();
    if (reused !== undefined) return reused;
    const at = this.used;
    this.used += size;
    if (this.used > this.data.length) {
      let length = this.data.length * 2;
      while (length < this.used) length *= 2;
      const data = new Float64Array(length);
      data.set(this.data.subarray(0, at));
      this.data = data;
    }
    return at;
  }

  release(at: number, size: number): void {
    (this.free[Math.log2(size)] ??= []).push(at);
  }
}

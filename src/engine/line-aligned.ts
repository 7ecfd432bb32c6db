// The global WebAssembly API, which @types/node leaves out (lib "dom" declares it): the one call used here.
declare const WebAssembly: { Memory: new (descriptor: { initial: number }) => { readonly buffer: ArrayBuffer } };

/** A WebAssembly memory grows by pages of this many bytes, and its buffer starts on one. */
const PAGE = 65_536;

/**
 * A zeroed `Float64Array` of `length` numbers whose first number starts a cache line, so records
 * laid out in whole 64-byte lines are one line each. An `ArrayBuffer` gives no such promise (its
 * store comes from malloc, 16-byte aligned); a WebAssembly memory's buffer starts on a page.
 * Up to one page it is a plain array: that little stays in the cache whatever its alignment, and a
 * memory costs ~20 µs more to make, which thousands of small indexes (the tests') would pay.
 */
export function lineAligned(length: number): Float64Array {
  const bytes = length * Float64Array.BYTES_PER_ELEMENT;
  if (bytes <= PAGE) return new Float64Array(length);
  return new Float64Array(new WebAssembly.Memory({ initial: Math.ceil(bytes / PAGE) }).buffer, 0, length);
}

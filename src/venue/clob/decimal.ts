// The venue sends every price, size and timestamp as a decimal string ("0.45", "3735.43",
// "1763800019931"), ~9 of them per price_change message. `Number(string)` goes through V8's general
// string-to-number conversion (a builtin call, whitespace, signs, hex, exponents, Infinity); the
// plain digits-and-one-dot form is read here with inlined `charCodeAt` instead.

// 10^0 … 10^15: every one an exact double.
const POWERS = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * The value of `s` when it is 1–15 characters of ASCII digits with at most one `.` (not the dot
 * alone); -1 for anything else, which the caller gives to `Number`. Equal to `Number(s)` whenever
 * it answers: the digits form an integer below 2^53 and the power of ten is exact, so the one
 * IEEE division is the correctly rounded decimal, as `Number` gives.
 */
export function plainDecimal(s: string): number {
  const n = s.length;
  if (n === 0 || n > 15) return -1;
  let digits = 0;
  let dot = -1;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) digits = digits * 10 + (c - 48);
    else if (c === 46 && dot === -1) dot = i;
    else return -1;
  }
  if (dot === -1) return digits;
  return n === 1 ? -1 : digits / POWERS[n - 1 - dot]!;
}

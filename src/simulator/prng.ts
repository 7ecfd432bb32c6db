/** A small seeded PRNG (mulberry32): the same seed always builds the same catalog. */
export interface Rng {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  sample<T>(items: readonly T[], n: number): T[];
  hex(length: number): string;
  digits(length: number): string;
}

export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const rng: Rng = {
    next,
    int,
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
    chance: (p) => next() < p,
    sample(items, n) {
      const pool = [...items];
      const out: (typeof items)[number][] = [];
      while (out.length < n && pool.length > 0) out.push(pool.splice(Math.floor(next() * pool.length), 1)[0] as (typeof items)[number]);
      return out;
    },
    hex: (length) => Array.from({ length }, () => '0123456789abcdef'[int(0, 15)]).join(''),
    digits: (length) => String(int(1, 9)) + Array.from({ length: length - 1 }, () => String(int(0, 9))).join(''),
  };
  return rng;
}

// Crossing Step levels are k·step for integers k with 0 < k·step < 1, each rounded to 1e-9 so that
// 3 × 0.1 is the level 0.3 and not 0.30000000000000004. Index and reference both use these helpers.

const SCALE = 1e9;
/** The smallest step (0.01 percent). The subscription schema refuses smaller ones; the engine never fires them. */
export const MIN_STEP = 1e-4;
const NONE: readonly number[] = Object.freeze([]);

export function stepLevel(step: number, k: number): number {
  return Math.round(k * step * SCALE) / SCALE;
}

export function isValidStep(step: number): boolean {
  return step >= MIN_STEP && step < 1;
}

/** Every level of a step, ascending (the plain enumeration the reference evaluator scans). */
export function allLevels(step: number): number[] {
  const levels: number[] = [];
  if (!isValidStep(step)) return levels;
  for (let k = 1, level = stepLevel(step, 1); level < 1; k++, level = stepLevel(step, k)) {
    if (level > 0) levels.push(level);
  }
  return levels;
}

function firstKAbove(step: number, price: number): number {
  let k = Math.max(1, Math.floor(price / step) - 1);
  while (stepLevel(step, k) <= price) k++;
  return k;
}

function lastKBelow(step: number, price: number): number {
  let k = Math.max(0, Math.ceil(price / step) + 1);
  while (k >= 1 && stepLevel(step, k) >= price) k--;
  return k;
}

/** Levels in (p0, p1] on the way up or [p1, p0) on the way down, in crossing order. */
export function crossedLevels(step: number, p0: number, p1: number): readonly number[] {
  if (!isValidStep(step) || p0 === p1) return NONE;
  let out: number[] | undefined;
  if (p1 > p0) {
    for (let k = firstKAbove(step, p0), level = stepLevel(step, k); level <= p1 && level < 1; level = stepLevel(step, ++k)) {
      (out ??= []).push(level);
    }
  } else {
    for (let k = lastKBelow(step, p0), level = stepLevel(step, k); k >= 1 && level >= p1; level = stepLevel(step, --k)) {
      if (level < 1) (out ??= []).push(level);
    }
  }
  return out ?? NONE;
}

import fc from 'fast-check';

/** Characters PostgreSQL text cannot hold as sent: NUL, and UTF-16 surrogates with no partner. */
export const BAD_CHARS = ['\u0000', '\ud800', '\udbff', '\udc00', '\udfff'] as const;

const badChar = fc.constantFrom(...BAD_CHARS);

/** One string unit, now and then a bad one (for fc.anything's `stringUnit`). */
export const nastyUnit = fc.oneof(
  { arbitrary: badChar, weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), weight: 4 },
);

type Step = string | number;
type Spot = { path: Step[]; isKey: boolean; value: string };

/** Every string in a JSON value, as a value or as an object key. */
export function stringSpots(value: unknown, path: Step[] = []): Spot[] {
  if (typeof value === 'string') return [{ path, isKey: false, value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringSpots(v, [...path, i]));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [{ path: [...path, k], isKey: true, value: k }, ...stringSpots(v, [...path, k])]);
  }
  return [];
}

function replaceAt(value: unknown, spot: Spot, next: string, depth = 0): unknown {
  if (depth === spot.path.length) return next;
  const step = spot.path[depth]!;
  if (Array.isArray(value)) return value.map((v, i) => (i === step ? replaceAt(v, spot, next, depth + 1) : v));
  const entries = Object.entries(value as Record<string, unknown>).map(([k, v]): [string, unknown] => {
    if (k !== step) return [k, v];
    if (spot.isKey && depth === spot.path.length - 1) return [next, v];
    return [k, replaceAt(v, spot, next, depth + 1)];
  });
  return Object.fromEntries(entries);
}

/**
 * A valid body with one bad character slipped into one of its strings (value or key), so the bad
 * character is the only thing wrong with it. `field` is the key that holds (or is) that string.
 * `keys: false` spoils only values (for schemas that ignore unknown keys).
 */
export function withBadCharacter(valid: Record<string, unknown>, { keys = true } = {}) {
  // Schemas that strip unknown keys rightly accept a body whose spoiled key is merely unknown.
  const spots = stringSpots(valid).filter((spot) => keys || !spot.isKey);
  if (spots.length === 0) throw new Error('the valid body holds no string to spoil');
  return fc
    .tuple(fc.constantFrom(...spots), badChar, fc.nat())
    .map(([spot, bad, at]) => {
      const i = at % (spot.value.length + 1);
      const field = String([...spot.path].reverse().find((s) => typeof s === 'string'));
      return { body: replaceAt(valid, spot, spot.value.slice(0, i) + bad + spot.value.slice(i)), field, isKey: spot.isKey };
    });
}

/**
 * A path segment that decodes to text with a bad character. NUL is `%00`; a lone surrogate has no
 * UTF-8 form, so a client can only send its WTF-8 bytes (`%ED%A0%80`), which do not decode.
 */
export const badPathSegment = fc
  .tuple(fc.stringMatching(/^[A-Za-z0-9_-]{0,6}$/), fc.constantFrom('%00', '%ED%A0%80', '%ED%B0%80'), fc.stringMatching(/^[A-Za-z0-9_-]{0,6}$/))
  .map(([a, bad, b]) => a + bad + b);

import type { PriceChangeEntry, PriceChangeMessage, Side } from './messages.js';

// The feed is almost all `price_change` frames in the new form. JSON.parse builds a whole tree of
// objects and strings for them, most of which (hashes, keys, the numbers as strings) is thrown away
// at once. This reads only the fields used, straight off the frame: string contents are skipped
// with `indexOf` (native, memchr speed), so the JavaScript work is per field, not per character.
//
// It answers exactly what `JSON.parse` plus `parsePriceChange` answer, or `null` (then the caller
// does just that) for anything it is not sure of: escapes, control characters, tabs or newlines,
// any other event type, the legacy form, nested values in unknown fields, malformed messages. So it
// may give up on valid frames, but never accepts one differently.

const SPACE = 32;
const QUOTE = 34;
const COMMA = 44;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const COLON = 58;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;

/** With neither, every `"` opens or closes a string, and a string's text is its value as written. */
const UNSAFE = /[\u0000-\u001f\\]/;
/** A JSON number literal (RFC 8259 section 6), from the current position. */
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/** Exact powers of ten: an integer below 2^53 divided by one is the correctly rounded decimal. */
const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i);
const MAX_FAST_DIGITS = 15;

const LITERALS = ['true', 'false', 'null'];

/** Thrown (one object, no stack) to give the frame up to JSON.parse. */
const GIVE_UP = { giveUp: true };

/** `num` and `optNum` of messages.ts, told apart. */
const MALFORMED = Symbol('malformed');
type Number_ = number | null | typeof MALFORMED;

let src = '';
let at = 0;

/**
 * The messages of a frame that holds one new-form `price_change` or an array of them (as
 * `parseMarketFrame` would give them), or `null` when the frame must go through JSON.parse.
 */
export function scanPriceChangeFrame(text: string): PriceChangeMessage[] | null {
  if (text.indexOf('"price_change"') === -1 || UNSAFE.test(text)) return null;
  src = text;
  at = 0;
  try {
    skipSpace();
    let out: PriceChangeMessage[];
    if (src.charCodeAt(at) === OPEN_ARRAY) {
      at++;
      skipSpace();
      out = [];
      if (src.charCodeAt(at) === CLOSE_ARRAY) at++;
      else {
        for (;;) {
          out.push(message());
          skipSpace();
          const c = src.charCodeAt(at++);
          if (c === CLOSE_ARRAY) break;
          if (c !== COMMA) throw GIVE_UP;
          skipSpace();
        }
      }
    } else {
      out = [message()];
    }
    skipSpace();
    if (at !== src.length) throw GIVE_UP;
    return out;
  } catch (err) {
    if (err === GIVE_UP) return null;
    throw err;
  } finally {
    src = '';
  }
}

function message(): PriceChangeMessage {
  expect(OPEN_OBJECT);
  let isPriceChange = false;
  let market: string | undefined;
  let timestamp: Number_ = null;
  let changes: PriceChangeEntry[] | undefined;
  for (let more = firstMember(); more; more = nextMember()) {
    if (keyIs('event_type')) {
      // Another type, or a repeated key naming one, goes through JSON.parse.
      if (!src.startsWith('"price_change"', at)) throw GIVE_UP;
      at += 14;
      isPriceChange = true;
    } else if (keyIs('market')) market = string();
    else if (keyIs('timestamp')) timestamp = number(true);
    else if (keyIs('price_changes')) changes = entries();
    else skipScalar();
  }
  if (!isPriceChange || market === undefined || changes === undefined) throw GIVE_UP;
  return { type: 'price_change', market, timestampMs: timestamp === null || timestamp === MALFORMED ? 0 : timestamp, legacy: false, changes };
}

function entries(): PriceChangeEntry[] {
  expect(OPEN_ARRAY);
  skipSpace();
  const out: PriceChangeEntry[] = [];
  if (src.charCodeAt(at) === CLOSE_ARRAY) {
    at++;
    return out;
  }
  for (;;) {
    out.push(entry());
    skipSpace();
    const c = src.charCodeAt(at++);
    if (c === CLOSE_ARRAY) return out;
    if (c !== COMMA) throw GIVE_UP;
    skipSpace();
  }
}

function entry(): PriceChangeEntry {
  expect(OPEN_OBJECT);
  let assetId: string | undefined;
  let price: Number_ = MALFORMED;
  let size: Number_ = MALFORMED;
  let side: Side | undefined;
  let bestBid: Number_ = null;
  let bestAsk: Number_ = null;
  for (let more = firstMember(); more; more = nextMember()) {
    if (keyIs('asset_id')) assetId = string();
    else if (keyIs('price')) price = number(false);
    else if (keyIs('size')) size = number(false);
    else if (keyIs('side')) side = sideValue();
    else if (keyIs('best_bid')) bestBid = number(true);
    else if (keyIs('best_ask')) bestAsk = number(true);
    else skipScalar();
  }
  // What parsePriceChange rejects (the message is then skipped) is left to it.
  if (assetId === undefined || side === undefined || price === MALFORMED || price === null || size === MALFORMED || size === null) throw GIVE_UP;
  return { assetId, price, size, side, bestBid: bestBid === MALFORMED ? null : bestBid, bestAsk: bestAsk === MALFORMED ? null : bestAsk };
}

let keyStart = 0;
let keyLength = 0;

/** After an object's `{`: reads the first member's key (into keyStart/keyLength), false for `{}`. */
function firstMember(): boolean {
  skipSpace();
  if (src.charCodeAt(at) === CLOSE_OBJECT) {
    at++;
    return false;
  }
  key();
  return true;
}

/** After a member's value: reads the next member's key, false at the object's `}`. */
function nextMember(): boolean {
  skipSpace();
  const c = src.charCodeAt(at++);
  if (c === CLOSE_OBJECT) return false;
  if (c !== COMMA) throw GIVE_UP;
  skipSpace();
  key();
  return true;
}

/** A member's key and its colon; the value follows at `at`. Keys are short: read here, not by a builtin call. */
function key(): void {
  if (src.charCodeAt(at) !== QUOTE) throw GIVE_UP;
  const s = src;
  const start = at + 1;
  let i = start;
  for (let c = s.charCodeAt(i); c !== QUOTE; c = s.charCodeAt(++i)) if (i >= s.length) throw GIVE_UP;
  keyStart = start;
  keyLength = i - start;
  at = i + 1;
  skipSpace();
  expect(COLON);
  skipSpace();
}

/** Whether the key just read is `name`. */
function keyIs(name: string): boolean {
  const n = keyLength;
  if (n !== name.length) return false;
  const s = src;
  const k = keyStart;
  for (let i = 0; i < n; i++) if (s.charCodeAt(k + i) !== name.charCodeAt(i)) return false;
  return true;
}

function skipSpace(): void {
  while (src.charCodeAt(at) === SPACE) at++;
}

function expect(code: number): void {
  if (src.charCodeAt(at) !== code) throw GIVE_UP;
  at++;
}

/** A string value; anything else gives up (parsePriceChange would reject the message). */
function string(): string {
  if (src.charCodeAt(at) !== QUOTE) throw GIVE_UP;
  const end = src.indexOf('"', at + 1);
  if (end === -1) throw GIVE_UP;
  const s = src.slice(at + 1, end);
  at = end + 1;
  return s;
}

function sideValue(): Side {
  if (src.startsWith('"BUY"', at)) {
    at += 5;
    return 'BUY';
  }
  if (src.startsWith('"SELL"', at)) {
    at += 6;
    return 'SELL';
  }
  throw GIVE_UP;
}

/**
 * A price, size or top as `num` (optional: `optNum`) of messages.ts reads it. A string of digits
 * with at most one dot and 15 digits is computed here (exact: see POW10); any other text goes to
 * `Number` as there.
 */
function number(optional: boolean): Number_ {
  const c = src.charCodeAt(at);
  if (c === QUOTE) {
    const start = at + 1;
    const end = src.indexOf('"', start);
    if (end === -1) throw GIVE_UP;
    at = end + 1;
    let mantissa = 0;
    let digits = 0;
    let dot = -1;
    let plain = end > start;
    const s = src;
    for (let i = start; i < end && plain; i++) {
      const d = s.charCodeAt(i);
      if (d >= ZERO && d <= NINE) {
        mantissa = mantissa * 10 + (d - ZERO);
        digits++;
      } else if (d === DOT && dot === -1) dot = i;
      else plain = false;
    }
    if (plain && digits > 0 && digits <= MAX_FAST_DIGITS) return dot === -1 ? mantissa : mantissa / POW10[end - dot - 1]!;
    return fromText(src.slice(start, end), optional);
  }
  if (c === 110 /* n */ && src.startsWith('null', at)) {
    at += 4;
    return optional ? null : MALFORMED;
  }
  if ((c >= ZERO && c <= NINE) || c === 45 /* - */) {
    NUMBER.lastIndex = at;
    const m = NUMBER.exec(src);
    if (m === null) throw GIVE_UP;
    at += m[0].length;
    const n = Number(m[0]);
    return Number.isFinite(n) ? n : optional ? null : MALFORMED;
  }
  // true/false, objects, arrays: rare enough to leave to JSON.parse.
  throw GIVE_UP;
}

/** messages.ts's `num` (or `optNum`, which does not trim: `Number(' ')` is 0) of a string value. */
function fromText(v: string, optional: boolean): Number_ {
  if (optional) {
    if (v === '') return null;
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  const n = v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : MALFORMED;
}

/** The value of a field not used: a string, number, true, false or null. */
function skipScalar(): void {
  const c = src.charCodeAt(at);
  if (c === QUOTE) {
    const end = src.indexOf('"', at + 1);
    if (end === -1) throw GIVE_UP;
    at = end + 1;
    return;
  }
  if ((c >= ZERO && c <= NINE) || c === 45) {
    NUMBER.lastIndex = at;
    const m = NUMBER.exec(src);
    if (m === null) throw GIVE_UP;
    at += m[0].length;
    return;
  }
  for (const word of LITERALS) {
    if (src.startsWith(word, at)) {
      at += word.length;
      return;
    }
  }
  throw GIVE_UP;
}

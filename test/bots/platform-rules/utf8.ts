/**
 * Whether a decoded JSON body holds a string with an unpaired UTF-16 surrogate (half an emoji).
 * JSON.stringify writes one as a `\udXXX` escape that has no UTF-8 form, and both Telegram and
 * Discord refuse such a body.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  if (value && typeof value === 'object') return Object.entries(value).some(([k, v]) => LONE_SURROGATE.test(k) || hasLoneSurrogate(v));
  return false;
}

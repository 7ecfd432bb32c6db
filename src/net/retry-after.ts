/**
 * The one reading of "wait before retrying" for every outbound client (venue, webhook, Discord,
 * Telegram), in milliseconds, or undefined when absent or unreadable. No dependency: the packages
 * that parse this header are unmaintained or pull in a whole HTTP client for ten lines.
 */

/** A `Retry-After` header (RFC 9110 §10.2.3): delta-seconds (fractions accepted) or an HTTP date. */
export function retryAfterHeaderMs(value: string | string[] | null | undefined, nowMs = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  // Every HTTP date form starts with the day name; this keeps Date.parse from reading "-5" as a year.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * A JSON body's seconds to wait: Telegram's `parameters.retry_after` (whole seconds) and Discord's
 * `retry_after` (fractional seconds). Anything but a finite non-negative number is unreadable.
 */
export function retryAfterSecondsMs(seconds: unknown): number | undefined {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
}

import { describe, expect, it } from 'vitest';
import { retryAfterHeaderMs, retryAfterSecondsMs } from '../../src/net/retry-after.js';

describe('Retry-After', () => {
  const now = Date.parse('2025-11-22T10:00:00Z');

  it('reads the header as seconds or as an HTTP date', () => {
    expect(retryAfterHeaderMs('3', now)).toBe(3000);
    expect(retryAfterHeaderMs('Sat, 22 Nov 2025 10:00:05 GMT', now)).toBe(5000);
    expect(retryAfterHeaderMs('Sat, 22 Nov 2025 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterHeaderMs(null, now)).toBeUndefined();
    expect(retryAfterHeaderMs('soon', now)).toBeUndefined();
  });

  it('rounds fractional seconds up, so a client never comes back early', () => {
    expect(retryAfterHeaderMs('1.2501', now)).toBe(1251);
    expect(retryAfterHeaderMs(' 2 ', now)).toBe(2000);
    expect(retryAfterHeaderMs('0', now)).toBe(0);
  });

  it('takes the first of repeated headers and ignores blank, negative and non-decimal values', () => {
    expect(retryAfterHeaderMs(['4', '9'], now)).toBe(4000);
    expect(retryAfterHeaderMs(undefined, now)).toBeUndefined();
    expect(retryAfterHeaderMs('', now)).toBeUndefined();
    expect(retryAfterHeaderMs('   ', now)).toBeUndefined();
    expect(retryAfterHeaderMs('-5', now)).toBeUndefined();
    expect(retryAfterHeaderMs('0x10', now)).toBeUndefined();
    expect(retryAfterHeaderMs('2025-11-22T10:00:05Z', now)).toBeUndefined(); // not an HTTP date
  });

  it("reads Telegram's parameters.retry_after and Discord's retry_after seconds from a JSON body", () => {
    expect(retryAfterSecondsMs(5)).toBe(5000); // Telegram: whole seconds
    expect(retryAfterSecondsMs(1.25)).toBe(1250); // Discord: fractional seconds
    expect(retryAfterSecondsMs(0.0001)).toBe(1);
    expect(retryAfterSecondsMs(undefined)).toBeUndefined();
    expect(retryAfterSecondsMs('5')).toBeUndefined();
    expect(retryAfterSecondsMs(-1)).toBeUndefined();
    expect(retryAfterSecondsMs(Number.NaN)).toBeUndefined();
    expect(retryAfterSecondsMs(Number.POSITIVE_INFINITY)).toBeUndefined();
  });
});

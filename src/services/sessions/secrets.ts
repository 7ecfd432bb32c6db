import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_PREFIX = 'ows_';
const LOGIN_CODE_PREFIX = 'owl_';

/** A session's secret: the cookie's value. Only its hash is stored (api_tokens.token_hash). */
export const newSessionSecret = (): string => SESSION_PREFIX + randomBytes(32).toString('base64url');
export const looksLikeSession = (value: string): boolean => /^ows_[A-Za-z0-9_-]{43}$/.test(value);

export const newLoginCode = (): string => LOGIN_CODE_PREFIX + randomBytes(24).toString('base64url');

/**
 * The CSRF token of a session: an HMAC keyed by the session's secret. Another site can make the
 * browser send the cookie but cannot read it, so it cannot compute this; nothing more is stored.
 */
export const csrfTokenOf = (sessionSecret: string): string =>
  createHmac('sha256', sessionSecret).update('oddswatch csrf v1').digest('base64url');

export function csrfMatches(sessionSecret: string, given: string | undefined): boolean {
  if (!given) return false;
  const expected = Buffer.from(csrfTokenOf(sessionSecret));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'ow_';
const PREFIX_SHOWN = TOKEN_PREFIX.length + 6;

/** A new API token: shown once; only its SHA-256 hash is stored. */
export function generateToken(): { token: string; hash: string; prefix: string } {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token), prefix: token.slice(0, PREFIX_SHOWN) };
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export const looksLikeToken = (value: string): boolean => /^ow_[A-Za-z0-9_-]{43}$/.test(value);

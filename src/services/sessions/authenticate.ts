import type { SystemDeps } from '../context.js';
import { forbidden, unauthorized } from '../errors.js';
import { checkSecret, type Authenticated } from '../tokens/authenticate.js';
import { csrfMatches, looksLikeSession } from './secrets.js';

export const CSRF_HEADER = 'x-csrf-token';

/**
 * A request authenticated by the session cookie. A request that changes something (`unsafe`) must
 * also carry the session's CSRF token in the X-CSRF-Token header.
 */
export async function authenticateSession(
  deps: SystemDeps,
  secret: string,
  { unsafe, csrfToken }: { unsafe: boolean; csrfToken: string | undefined },
  now = new Date(),
): Promise<Authenticated> {
  if (!looksLikeSession(secret)) throw unauthorized('Invalid session: sign in again');
  const auth = await checkSecret(deps, secret, 'session', now);
  if (unsafe && !csrfMatches(secret, csrfToken)) {
    throw forbidden('Missing or wrong X-CSRF-Token header: send the csrfToken that POST /sessions answered');
  }
  return auth;
}

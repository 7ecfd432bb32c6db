import { apiTokens } from '../../db/schema/index.js';
import type { SystemDeps } from '../context.js';
import { newId } from '../ids.js';
import { checkSecret } from '../tokens/authenticate.js';
import { hashToken, looksLikeToken } from '../tokens/token-format.js';
import { unauthorized, validationError } from '../errors.js';
import { parseInput } from '../validate.js';
import { redeemLoginCode } from './login-codes.js';
import { CreateSessionInput, SESSION_BODY_HINT } from './schemas.js';
import { csrfTokenOf, newSessionSecret } from './secrets.js';

export const SESSION_TTL_MS = 7 * 24 * 3_600_000;

export interface NewSession {
  id: string;
  /** The cookie's value: shown to the transport only, never in a body. */
  secret: string;
  csrfToken: string;
  userId: string;
  expiresAt: Date;
}

/**
 * Signs a browser in: a session row in api_tokens (kind `session`, so GET /tokens lists it and
 * revoking it signs out), made from a valid API token or a one-time login code.
 */
export async function createSession(deps: SystemDeps, input: CreateSessionInput, now = new Date()): Promise<NewSession> {
  if (typeof input !== 'object' || input === null) throw validationError(`Request body: ${SESSION_BODY_HINT}`);
  const parsed = parseInput(CreateSessionInput, input);
  let accountId: string;
  if ('token' in parsed) {
    if (!looksLikeToken(parsed.token)) throw unauthorized('Invalid token: paste an API token (it starts with ow_)');
    accountId = (await checkSecret(deps, parsed.token, 'token', now)).account.id;
  } else {
    accountId = await redeemLoginCode(deps, parsed.loginCode, now);
  }
  const secret = newSessionSecret();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  const id = newId();
  await deps.database.db.insert(apiTokens).values({
    id,
    accountId,
    name: 'web console',
    prefix: secret.slice(0, 10),
    tokenHash: hashToken(secret),
    kind: 'session',
    expiresAt,
  });
  return { id, secret, csrfToken: csrfTokenOf(secret), userId: accountId, expiresAt };
}

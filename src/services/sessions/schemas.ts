import { z } from 'zod';
import { text } from '../schemas.js';

const Secret = text().trim().min(1, 'must not be empty').max(200, 'is too long');

/** Sign in with an API token (pasted) or the code of a `/login` link: exactly one of them. */
export const SESSION_BODY_HINT = 'send {"token": "<API token>"} or {"loginCode": "<code of a /login link>"}, one of them';

export const CreateSessionInput = z.union(
  [
    z.strictObject({ token: Secret.meta({ description: 'An API token of the account' }) }),
    z.strictObject({ loginCode: Secret.meta({ description: 'The code of a /login link from Telegram or Discord' }) }),
  ],
  { error: SESSION_BODY_HINT },
);
export type CreateSessionInput = z.input<typeof CreateSessionInput>;

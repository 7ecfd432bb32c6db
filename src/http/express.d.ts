import type { ServiceError } from '../services/errors.js';
import type { Authenticated } from '../services/tokens/authenticate.js';

declare global {
  namespace Express {
    interface Request {
      auth?: Authenticated;
      /** Why the Bearer token or session cookie was refused; raised after the rate limiter has counted the request. */
      authRefused?: ServiceError;
    }
  }
}

import type { Authenticated } from '../services/tokens/authenticate.js';

declare global {
  namespace Express {
    interface Request {
      auth?: Authenticated;
    }
  }
}

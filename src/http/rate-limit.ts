import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';

/** A fixed one-minute window with `RateLimit-*` headers and a 429 `{error}` with `Retry-After`. */
export function minuteLimiter(limit: number, keyOf: (req: Request) => string): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit,
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    keyGenerator: keyOf,
    handler: (_req, res, _next, options) => {
      res.status(options.statusCode).json({
        error: `Rate limit exceeded: at most ${limit} requests a minute; retry after the time in the Retry-After header`,
      });
    },
  });
}

export const byIp = (req: Request) => `ip:${ipKeyGenerator(req.ip ?? 'unknown')}`;

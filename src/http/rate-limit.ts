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
    // Forwarding headers from clients are expected and deliberately ignored unless TRUST_PROXY
    // names the proxies; the library would print a warning to the console for each such client.
    validate: { xForwardedForHeader: false, forwardedHeader: false },
    handler: (_req, res, _next, options) => {
      res.status(options.statusCode).json({
        error: `Rate limit exceeded: at most ${limit} requests a minute; retry after the time in the Retry-After header`,
      });
    },
  });
}

/** The client address as express derives it under the TRUST_PROXY setting; IPv6 by /56 subnet. */
export const byIp = (req: Request) => `ip:${ipKeyGenerator(req.ip ?? 'unknown')}`;

/**
 * Bearer endpoints: one budget per account, however many tokens it holds; a request whose token
 * was refused counts against its client address, so guessing tokens is limited too.
 */
export const byAccountOrIp = (req: Request) => (req.auth ? `account:${req.auth.account.id}` : byIp(req));

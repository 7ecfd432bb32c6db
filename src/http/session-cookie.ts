import type { CookieOptions, Request } from 'express';

/** The console's session cookie (its value is the session's secret). */
export const SESSION_COOKIE = 'ow_session';

/** httpOnly (scripts cannot read it), SameSite=Strict (other sites' requests do not carry it), Secure over https. */
export const sessionCookieOptions = (req: Request, expires?: Date): CookieOptions => ({
  httpOnly: true,
  sameSite: 'strict',
  secure: req.secure,
  path: '/',
  ...(expires ? { expires } : {}),
});

/** A JSON answer that also sets (value) or clears (null) the session cookie. */
export class WithSessionCookie {
  constructor(
    readonly body: unknown,
    readonly session: { secret: string; expiresAt: Date } | null,
  ) {}
}

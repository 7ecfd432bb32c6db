import { z } from 'zod';
import * as sessions from '../../services/sessions/index.js';
import { unparsed } from '../../services/validate.js';
import { Empty } from '../response-schemas.js';
import { defineRoutes } from '../route.js';
import { WithSessionCookie } from '../session-cookie.js';

const tag = 'Sessions';

const Session = z
  .strictObject({
    csrfToken: z.string().meta({ description: 'Send it as the X-CSRF-Token header on every POST, PUT, PATCH and DELETE made with the cookie' }),
    userId: z.string(),
    expiresAt: z.string(),
  })
  .meta({ id: 'Session' });

export const sessionRoutes = defineRoutes([
  {
    method: 'post',
    path: '/sessions',
    summary:
      'Sign a browser in (the web console): an API token or a /login code becomes an httpOnly, SameSite=Strict session cookie, listed in GET /tokens as kind "session"',
    tag,
    auth: 'public',
    body: sessions.CreateSessionInput,
    status: 201,
    response: Session,
    errors: [400, 401],
    handler: async (ctx, { body, now }) => {
      const made = await sessions.createSession(ctx, unparsed(body), now);
      return new WithSessionCookie(
        { csrfToken: made.csrfToken, userId: made.userId, expiresAt: made.expiresAt },
        { secret: made.secret, expiresAt: made.expiresAt },
      );
    },
  },
  {
    method: 'delete',
    path: '/sessions/current',
    summary: 'Sign out: ends the session of the cookie this request carries and clears the cookie',
    tag,
    auth: 'bearer',
    response: Empty,
    errors: [400],
    handler: async (ctx) => {
      await sessions.endCurrentSession({ ctx });
      return new WithSessionCookie({}, null);
    },
  },
]);

import type { Express, RequestHandler } from 'express';

/**
 * ETags on the answers to GET and HEAD only. express gives every answer `res.send` writes an ETag
 * (a SHA-1 of its body, and the body turned into a Buffer to hash it), whatever the method; but it
 * answers If-None-Match with 304 on GET and HEAD only, and no cache keeps or revalidates an answer
 * to POST, PATCH or DELETE by it, so there it was work for a header nobody can use (~0.04 ms of a
 * create). express reads its `etag fn` setting from `res.app` on each send: answers to the other
 * methods get a view of the app whose settings say "no ETag" and are otherwise the app's own
 * (docs/decisions.md, "ETags on reads only"). Routes that set their own ETag keep it on any method.
 */
export function etagsOnReadsOnly(app: Express): RequestHandler {
  const withoutETags = Object.create(app) as Express;
  // express walks `settings`' prototype chain, so later `app.set` calls still show through.
  withoutETags.settings = Object.create(app.settings, { 'etag fn': { value: undefined, enumerable: true } });
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') res.app = withoutETags;
    next();
  };
}

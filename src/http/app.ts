import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type Request, type RequestHandler } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../logger.js';
import { parse as parseCookies } from 'cookie';
import { authenticateBearer, startTokenCheckCache } from '../services/tokens/index.js';
import { authenticateSession, CSRF_HEADER } from '../services/sessions/index.js';
import type { ServiceContext } from '../services/context.js';
import { isServiceError } from '../services/errors.js';
import { startSearchAnswerCache } from '../services/search/index.js';
import { startListingNotices } from '../services/subscriptions/index.js';
import { createDocsPage } from './docs-page.js';
import { errorHandler, notFoundHandler } from './errors.js';
import { etagsOnReadsOnly } from './etags.js';
import { healthRoutes, type Readiness } from './health.js';
import { createHttpMetrics, type MetricSources } from './metrics.js';
import { buildOpenApiDocument } from './openapi.js';
import { defaultConsoleDir, mountConsole } from './console.js';
import { byAccountOrIp, byIp, minuteLimiter } from './rate-limit.js';
import { createNotificationStream, type NotificationStreamOptions } from './notification-stream.js';
import { expressPath, isStream, RawBody } from './route.js';
import { routeTable } from './routes/index.js';
import { SESSION_COOKIE, sessionCookieOptions, WithSessionCookie } from './session-cookie.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface AppDeps {
  config: Config;
  database: Database;
  logger: Logger;
  readiness: Readiness;
  /** Heartbeat and token-check periods of the notification stream (tests shorten them). */
  streamTiming?: Pick<NotificationStreamOptions, 'heartbeatMs' | 'tokenCheckMs'>;
  /**
   * Inbound webhooks of other services (the Telegram bot in webhook mode, Discord interactions):
   * POST path → handler. With `rawBody` the handler gets the body as received, a Buffer (for
   * signatures over the exact bytes).
   */
  webhooks?: { path: string; handler: RequestHandler; rawBody?: boolean }[];
  /** State shown in /metrics beyond HTTP (the chat bots). */
  metricSources?: MetricSources;
  /** The clock tokens expire by (tests move it instead of waiting for an expiry). */
  now?: () => number;
  /** The built web console (default dist/console, made by bin/build-console.js). */
  consoleDir?: string;
}

export interface HttpApp {
  /** The express app: listen on it, or hand it to supertest. */
  app: Express;
  /** Ends the open notification streams; call it before closing the server, which they would hold open. */
  close(): Promise<void>;
}

const REQUEST_ID = /^[\w.:-]{1,100}$/;

/**
 * A request as logged: what pino's standard request serializer gave of it (the URL is the one the
 * client sent, express's `originalUrl`; the logger's redaction keeps its path only), read straight
 * off node's request.
 */
const requestLogFields = (req: IncomingMessage & { id?: unknown; originalUrl?: string }) => ({
  id: req.id,
  method: req.method,
  url: req.originalUrl ?? req.url,
  remoteAddress: req.socket?.remoteAddress,
});
const responseLogFields = (res: ServerResponse) => ({ statusCode: res.statusCode });

/** The API: the route table (src/http/routes/index.ts), health, docs, and the injected bot webhooks. */
export function createApp(deps: AppDeps): HttpApp {
  const { config, database, logger, now = Date.now } = deps;
  const app = express();
  app.disable('x-powered-by');
  // Unset, the connection's address is the client: a forwarding header is then anyone's to write.
  app.set('trust proxy', config.TRUST_PROXY);
  const metrics = createHttpMetrics(deps.metricSources);
  // First, so that every answer to a write, errors included, is sent without an ETag.
  app.use(etagsOnReadsOnly(app));
  app.use(
    pinoHttp({
      logger,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
      // What an operator needs to follow a request, ~250 bytes a line: not every request and
      // response header (~1.4 KB a request, the bulk of the API's CPU time under load). These
      // also make the request binding on every line a service logs for the request.
      serializers: { req: requestLogFields, res: responseLogFields },
      // Unwrapped, those get node's request and response themselves: wrapped (pino-http's default)
      // each first went through pino-std-serializers, which builds a copy of the request with its
      // headers, query and params, and of the response with `getHeaders()`, on every request, only
      // for these to pick four fields and one (~0.04 ms of a create, docs/PERFORMANCE.md). Errors
      // keep pino's standard serializer, the logger's default.
      wrapSerializers: false,
    }),
  );
  app.use(metrics.middleware);
  // The /docs page has a policy of its own (src/http/docs-page.ts); everything else gets helmet's
  // strict defaults but upgrade-insecure-requests: a page served over plain http from another host
  // than localhost (a LAN address) would have its own scripts fetched over https, which the service
  // does not serve, and stay blank.
  const docs = createDocsPage(logger);
  const strictHeaders = helmet({ contentSecurityPolicy: { directives: { 'upgrade-insecure-requests': null } } });
  app.use((req, res, next) => (req.path === '/docs' ? docs.headers : strictHeaders)(req, res, next));
  // Before the JSON parser, which would consume the body these need byte for byte.
  for (const hook of deps.webhooks ?? []) {
    if (hook.rawBody) app.post(hook.path, express.raw({ type: () => true, limit: config.BODY_LIMIT_BYTES }), hook.handler);
  }
  app.use(express.json({ limit: config.BODY_LIMIT_BYTES, strict: false }));

  for (const hook of deps.webhooks ?? []) if (!hook.rawBody) app.post(hook.path, hook.handler);
  const notificationStream = createNotificationStream({ database, logger, now, ...deps.streamTiming });
  const routes = routeTable({ notificationStream: notificationStream.route });
  const apiLimiter = minuteLimiter(config.RATE_LIMIT_PER_MINUTE, byAccountOrIp);
  const publicLimiter = minuteLimiter(config.SEARCH_RATE_LIMIT_PER_MINUTE, byIp);
  // Bearer guards in this order: identify, count (per account, or per IP when refused), then refuse.
  // Caches kept current by notices; one that cannot follow its notices is not started, and the
  // code behind it reads the database every time instead.
  const follow = (started: Promise<() => Promise<void>>, without: string) =>
    started.catch((err: unknown) => {
      logger.warn({ err }, without);
      return async () => {};
    });
  // Token checks cached in memory once revocation notices are followed (until then, read each time).
  const tokenCache = follow(startTokenCheckCache(database), 'token checks are not cached: could not follow revocation notices');
  // Public search answers cached in memory once catalog change notices are followed.
  const searchCache = follow(startSearchAnswerCache(database), 'search answers are not cached: could not follow catalog change notices');
  // On PGlite, listings cached without a counter read per request once their notices are followed.
  const listingNotices = follow(startListingNotices(database), 'listings read their counter per request: could not follow listing change notices');
  // A Bearer header wins; without one, the console's session cookie (CSRF header on unsafe methods).
  const identify: RequestHandler = async (req, _res, next) => {
    const deps = { database, config, logger: req.log };
    const header = req.header('authorization');
    const session = header === undefined ? parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE] || undefined : undefined;
    try {
      req.auth =
        session === undefined
          ? await authenticateBearer(deps, header, new Date(now()))
          : await authenticateSession(deps, session, { unsafe: !SAFE_METHODS.has(req.method), csrfToken: req.header(CSRF_HEADER) }, new Date(now()));
    } catch (err) {
      if (!isServiceError(err) || (err.kind !== 'unauthorized' && err.kind !== 'forbidden')) throw err;
      req.authRefused = err;
    }
    next();
  };
  const requireAuth: RequestHandler = (req, _res, next) => {
    if (req.authRefused) throw req.authRefused;
    next();
  };
  const bearerGuards = [identify, apiLimiter, requireAuth];
  // req.log carries the request id (X-Request-Id) on every line a service logs for this request.
  const baseContext = (req: Request) => ({ database, config, logger: req.log });

  healthRoutes(app, { database, readiness: deps.readiness, registry: metrics.registry });
  // Built on the first request, once: ~20 ms of zod-openapi that every start paid before listening.
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  app.get('/openapi.json', (_req, res) => void res.json((document ??= buildOpenApiDocument(routes, config.PUBLIC_URL))));
  app.get('/docs', docs.page);
  app.use('/docs', docs.assets);
  mountConsole(app, deps.consoleDir ?? defaultConsoleDir());

  for (const route of routes) {
    if (isStream(route)) {
      app.get(expressPath(route.path), ...bearerGuards, async (req, res) => {
        await route.stream(bearerContext(baseContext(req), req), req, res);
      });
      continue;
    }
    const guards = route.auth === 'bearer' ? bearerGuards : [publicLimiter];
    app[route.method](expressPath(route.path), ...guards, async (req, res) => {
      const base = baseContext(req);
      const request = { params: req.params as Record<string, string>, query: { ...req.query }, body: req.body, req, now: new Date(now()) };
      const result =
        route.auth === 'bearer'
          ? await route.handler(bearerContext(base, req), request)
          : await route.handler(base, request);
      if (result instanceof WithSessionCookie) {
        if (result.session) res.cookie(SESSION_COOKIE, result.session.secret, sessionCookieOptions(req, result.session.expiresAt));
        else res.clearCookie(SESSION_COOKIE, sessionCookieOptions(req));
        res.status(route.status ?? 200).json(result.body);
      } else if (result instanceof RawBody) res.status(route.status ?? 200).set(result.headers).type(result.contentType).send(result.body);
      else res.status(route.status ?? 200).json(result);
    });
  }

  app.use(notFoundHandler);
  app.use(errorHandler);
  return {
    app,
    close: async () => {
      await notificationStream.close();
      await (await tokenCache)();
      await (await searchCache)();
      await (await listingNotices)();
    },
  };
}

function bearerContext(base: Omit<ServiceContext, 'account'>, req: Request): ServiceContext {
  const auth = req.auth!;
  return { ...base, account: auth.account, apiTokenId: auth.tokenId };
}

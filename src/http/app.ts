import { randomUUID } from 'node:crypto';
import express, { type Express, type Request, type RequestHandler } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import { apiReference } from '@scalar/express-api-reference';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../logger.js';
import { authenticateBearer } from '../services/tokens/index.js';
import type { ServiceContext } from '../services/context.js';
import { isServiceError } from '../services/errors.js';
import { errorHandler, notFoundHandler } from './errors.js';
import { healthRoutes, type Readiness } from './health.js';
import { createHttpMetrics, type MetricSources } from './metrics.js';
import { buildOpenApiDocument } from './openapi.js';
import { byAccountOrIp, byIp, minuteLimiter } from './rate-limit.js';
import { expressPath, RawBody, type RouteDef, type StreamRoute } from './route.js';
import { accountRoutes } from './routes/account.js';
import { channelRoutes } from './routes/channels.js';
import { subscriptionRoutes } from './routes/subscriptions.js';
import { watchlistRoutes } from './routes/watchlists.js';

export interface AppDeps {
  config: Config;
  database: Database;
  logger: Logger;
  readiness: Readiness;
  /** Route groups of later capabilities (search, demo, inbox). */
  extraRoutes?: RouteDef[];
  /** Long-lived Bearer GETs (the inbox event stream). */
  streams?: StreamRoute[];
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
}

const REQUEST_ID = /^[\w.:-]{1,100}$/;

export function createApp(deps: AppDeps): Express {
  const { config, database, logger, now = Date.now } = deps;
  const app = express();
  app.disable('x-powered-by');
  // Unset, the connection's address is the client: a forwarding header is then anyone's to write.
  app.set('trust proxy', config.TRUST_PROXY);
  const metrics = createHttpMetrics(deps.metricSources);

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
    }),
  );
  app.use(metrics.middleware);
  // The /docs page loads its renderer from a CDN; everything else gets helmet's strict defaults.
  const docsHeaders = helmet({
    contentSecurityPolicy: { directives: { 'script-src': ["'self'", "'unsafe-inline'", 'https://cdn.jsdelivr.net'] } },
  });
  const strictHeaders = helmet();
  app.use((req, res, next) => (req.path === '/docs' ? docsHeaders : strictHeaders)(req, res, next));
  // Before the JSON parser, which would consume the body these need byte for byte.
  for (const hook of deps.webhooks ?? []) {
    if (hook.rawBody) app.post(hook.path, express.raw({ type: () => true, limit: config.BODY_LIMIT_BYTES }), hook.handler);
  }
  app.use(express.json({ limit: config.BODY_LIMIT_BYTES, strict: false }));

  for (const hook of deps.webhooks ?? []) if (!hook.rawBody) app.post(hook.path, hook.handler);
  const routes = [...watchlistRoutes, ...subscriptionRoutes, ...channelRoutes, ...accountRoutes, ...(deps.extraRoutes ?? [])];
  const apiLimiter = minuteLimiter(config.RATE_LIMIT_PER_MINUTE, byAccountOrIp);
  const publicLimiter = minuteLimiter(config.SEARCH_RATE_LIMIT_PER_MINUTE, byIp);
  // Bearer guards in this order: identify, count (per account, or per IP when refused), then refuse.
  const identify: RequestHandler = async (req, _res, next) => {
    try {
      req.auth = await authenticateBearer({ database, config, logger: req.log }, req.header('authorization'), new Date(now()));
    } catch (err) {
      if (!isServiceError(err) || err.kind !== 'unauthorized') throw err;
      req.authRefused = err;
    }
    next();
  };
  const requireAuth: RequestHandler = (req, _res, next) => {
    if (req.authRefused) throw req.authRefused;
    next();
  };
  const bearerGuards = [identify, apiLimiter, requireAuth];

  healthRoutes(app, { database, readiness: deps.readiness, registry: metrics.registry });
  const document = buildOpenApiDocument(routes, config.PUBLIC_URL);
  app.get('/openapi.json', (_req, res) => void res.json(document));
  app.get('/docs', apiReference({ url: '/openapi.json', pageTitle: 'Oddswatch API' } as never));

  for (const stream of deps.streams ?? []) {
    app.get(expressPath(stream.path), ...bearerGuards, async (req, res) => {
      const base = { database, config, logger: req.log, requestId: String(req.id) };
      await stream.handler(bearerContext(base, req), req, res);
    });
  }
  for (const route of routes) {
    const guards = route.auth === 'bearer' ? bearerGuards : [publicLimiter];
    app[route.method](expressPath(route.path), ...guards, async (req, res) => {
      const base = { database, config, logger: req.log, requestId: String(req.id) };
      const request = { params: req.params as Record<string, string>, query: { ...req.query }, body: req.body, req };
      const result =
        route.auth === 'bearer'
          ? await route.handler(bearerContext(base, req), request)
          : await route.handler(base, request);
      if (result instanceof RawBody) res.status(route.status ?? 200).set(result.headers).type(result.contentType).send(result.body);
      else res.status(route.status ?? 200).json(result);
    });
  }

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}

function bearerContext(base: Omit<ServiceContext, 'account' | 'caller'>, req: Request): ServiceContext {
  const auth = req.auth!;
  return { ...base, account: auth.account, caller: { kind: 'apiToken', tokenId: auth.tokenId } };
}

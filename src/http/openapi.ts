import { createDocument } from 'zod-openapi';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { z } from 'zod';
import { NOTIFICATION_TYPE } from '../domain/enums.js';
import { ErrorBody } from './response-schemas.js';
import { isStream, pathParams, type Route, type StreamRoute } from './route.js';
import { DigestNotification, EventStatusNotification, PriceNotification, WebhookHeaders } from './webhook-payloads.js';
import { DIGEST_NOTIFICATION } from '../delivery/senders/webhook-body.js';

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid input; the error says what to fix',
  401: 'Missing, malformed, unknown, revoked or expired token',
  403: 'Not allowed, or a per-account limit reached; the error names it',
  404: 'Not found, or belongs to another account',
  409: 'Conflicts with the resource state',
  413: 'Body over the size limit',
  429: 'Rate limit exceeded; see Retry-After',
};

const IfNoneMatch = z.object({
  'If-None-Match': z.string().optional().meta({ description: 'The ETag of an earlier answer: 304 while it is still current' }),
});

function errorResponses(codes: Set<number>): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const code of [...codes].sort()) {
    responses[String(code)] = { description: ERROR_TEXT[code] ?? 'Error', content: { 'application/json': { schema: ErrorBody } } };
  }
  return responses;
}

function streamOperation(route: StreamRoute) {
  return {
    summary: route.summary,
    tags: [route.tag],
    security: [{ bearer: [] }],
    ...(route.headers ? { requestParams: { header: route.headers } } : {}),
    responses: {
      '200': { description: route.events, content: { 'text/event-stream': { schema: z.string() } } },
      ...errorResponses(new Set([...(route.errors ?? []), 401, 429])),
    },
  };
}

/** A call we make to the subscriber's webhookUrl: the payload, and any 2xx as its receipt. */
const webhookCall = (summary: string, schema: z.ZodType) => ({
  post: {
    summary,
    requestParams: { header: WebhookHeaders },
    requestBody: { content: { 'application/json': { schema } } },
    responses: {
      '200': {
        description:
          'Any 2xx within WEBHOOK_TIMEOUT_MS (5 s by default) confirms receipt; anything else is retried, 3 attempts in all, WEBHOOK_RETRY_DELAY_MS (1 s) apart',
      },
    },
  },
});

/** The OpenAPI 3.1 document of the route table, generated from the same zod schemas the services validate with. */
export function buildOpenApiDocument(routes: Route[], serverUrl?: string) {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    if (isStream(route)) {
      paths[route.path] = { ...paths[route.path], get: streamOperation(route) };
      continue;
    }
    const params = pathParams(route.path);
    const errors = new Set([...(route.errors ?? []), 429, ...(route.auth === 'bearer' ? [401] : [])]);
    if (route.body) errors.add(400).add(413);
    const responses: Record<string, unknown> = {
      [String(route.status ?? 200)]: {
        description: 'Success',
        ...(route.etag ? { headers: z.object({ ETag: z.string().meta({ description: 'Send it back as If-None-Match: 304 while unchanged' }) }) } : {}),
        content: { 'application/json': { schema: route.response } },
      },
      ...(route.etag ? { '304': { description: 'Unchanged since the If-None-Match ETag; no body' } } : {}),
      ...errorResponses(errors),
    };
    paths[route.path] = {
      ...paths[route.path],
      [route.method]: {
        summary: route.summary,
        tags: [route.tag],
        ...(route.auth === 'bearer' ? { security: [{ bearer: [] }] } : { security: [] }),
        ...(params.length > 0 || route.query || route.etag
          ? {
              requestParams: {
                ...(params.length > 0 ? { path: z.object(Object.fromEntries(params.map((p) => [p, z.string()]))) } : {}),
                ...(route.query ? { query: route.query } : {}),
                ...(route.etag ? { header: IfNoneMatch } : {}),
              },
            }
          : {}),
        ...(route.body ? { requestBody: { content: { 'application/json': { schema: route.body } } } } : {}),
        responses,
      },
    };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Oddswatch API',
      version: '0.0.1',
      license: { name: 'ISC', identifier: 'ISC' },
      description:
        'Watchlists and alerts for prediction markets. Authenticate with `Authorization: Bearer <token>`. ' +
        'The web console (/app) calls the same routes with the session cookie that `POST /sessions` sets; a change made with the cookie ' +
        '(POST, PUT, PATCH, DELETE) also needs the `X-CSRF-Token` header, else 403.',
    },
    servers: serverUrl ? [{ url: serverUrl }] : [],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths,
    webhooks: {
      [NOTIFICATION_TYPE.price]: webhookCall('A price rule fired', PriceNotification),
      [NOTIFICATION_TYPE.eventStatus]: webhookCall('An event or market opened or closed', EventStatusNotification),
      [DIGEST_NOTIFICATION]: webhookCall('A digest: several notifications in one call', DigestNotification),
    },
  });
}

import { createDocument } from 'zod-openapi';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { z } from 'zod';
import { ErrorBody } from './response-schemas.js';
import { pathParams, type RouteDef } from './route.js';

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid input; the error says what to fix',
  401: 'Missing, malformed, unknown, revoked or expired token',
  403: 'Not allowed, or a per-account limit reached; the error names it',
  404: 'Not found, or belongs to another account',
  409: 'Conflicts with the resource state',
  413: 'Body over the size limit',
  429: 'Rate limit exceeded; see Retry-After',
};

/** The OpenAPI 3.1 document, generated from the same zod schemas the services validate with. */
export function buildOpenApiDocument(routes: RouteDef[], serverUrl?: string) {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const params = pathParams(route.path);
    const errors = new Set([...(route.errors ?? []), 429, ...(route.auth === 'bearer' ? [401] : [])]);
    if (route.body) errors.add(400).add(413);
    const responses: Record<string, unknown> = {
      [String(route.status ?? 200)]: { description: 'Success', content: { 'application/json': { schema: route.response } } },
    };
    for (const code of [...errors].sort()) {
      responses[String(code)] = { description: ERROR_TEXT[code] ?? 'Error', content: { 'application/json': { schema: ErrorBody } } };
    }
    paths[route.path] = {
      ...paths[route.path],
      [route.method]: {
        summary: route.summary,
        tags: [route.tag],
        ...(route.auth === 'bearer' ? { security: [{ bearer: [] }] } : { security: [] }),
        ...(params.length > 0 || route.query
          ? {
              requestParams: {
                ...(params.length > 0 ? { path: z.object(Object.fromEntries(params.map((p) => [p, z.string()]))) } : {}),
                ...(route.query ? { query: route.query } : {}),
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
      description: 'Watchlists and alerts for prediction markets. Authenticate with `Authorization: Bearer <token>`.',
    },
    servers: serverUrl ? [{ url: serverUrl }] : [],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths,
  });
}

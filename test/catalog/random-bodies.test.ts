import fc from 'fast-check';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoRoutes } from '../../src/http/routes/demo.js';
import { catalogRoutes } from '../../src/http/routes/search.js';
import { CreateDemoWebhookInput } from '../../src/services/demo/schemas.js';
import { findEvent, findMarket } from '../../src/services/search/index.js';
import { SearchByKeyphrasesInput, SearchByTagsInput } from '../../src/services/search/schemas.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { badPathSegment, nastyUnit, withBadCharacter } from '../support/nasty-strings.js';
import { expressPath, pathParams } from '../../src/http/route.js';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.newAccount();
});
afterAll(() => env?.close());

// The search bodies ignore unknown keys (`strict: false`); the demo webhook body refuses them.
const endpoints: { path: string; schema: z.ZodType; auth: boolean; full: Record<string, unknown>; strict: boolean }[] = [
  { path: '/search', schema: SearchByKeyphrasesInput, auth: false, strict: false, full: { keyphrases: [{ text: 'bitcoin', include: true }], searchMatchOperator: 'AND' } },
  { path: '/search/tag-slugs', schema: SearchByTagsInput, auth: false, strict: false, full: { tags: [{ text: 'crypto', include: true }], searchMatchOperator: 'OR' } },
  { path: '/demo/webhooks', schema: CreateDemoWebhookInput, auth: true, strict: true, full: { url: 'https://hooks.example.com/demo?x=1' } },
];

describe(`random bodies to the search and demo POST endpoints (${engineName})`, () => {
  for (const endpoint of endpoints) {
    it(`POST ${endpoint.path} answers 4xx {error} and stores nothing`, async () => {
      const bodies = fc
        .anything({ maxDepth: 3, stringUnit: nastyUnit })
        .map((body) => (body === undefined ? null : JSON.parse(JSON.stringify(body) ?? 'null')))
        .filter((body) => !endpoint.schema.safeParse(body).success);
      await fc.assert(
        fc.asyncProperty(bodies, async (body) => {
          const req = env.http.post(endpoint.path).set('content-type', 'application/json');
          if (endpoint.auth) req.set(a.auth);
          const res = await req.send(JSON.stringify(body));
          expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          expect(res.body).toEqual({ error: expect.any(String) });
        }),
        { numRuns: 60 },
      );
      const hooks = await env.http.get('/demo/webhooks').set(a.auth).expect(200);
      expect(hooks.body.webhooks).toEqual([]);
    });
  }

  for (const endpoint of endpoints) {
    it(`POST ${endpoint.path}: NUL or a lone surrogate in any string is a 400 naming the field`, async () => {
      await fc.assert(
        fc.asyncProperty(withBadCharacter(endpoint.full, { keys: endpoint.strict }), async ({ body, field, isKey }) => {
          const req = env.http.post(endpoint.path).set('content-type', 'application/json');
          if (endpoint.auth) req.set(a.auth);
          const res = await req.send(JSON.stringify(body));
          expect(res.status, JSON.stringify(body)).toBe(400);
          expect(res.body).toEqual({ error: expect.any(String) });
          if (!isKey) expect(res.body.error, JSON.stringify(body)).toContain(field);
        }),
        { numRuns: 40 },
      );
      const hooks = await env.http.get('/demo/webhooks').set(a.auth).expect(200);
      expect(hooks.body.webhooks).toEqual([]);
    });
  }

  it('every search and demo route with a path parameter answers 400 {error} to NUL or a lone surrogate in it', async () => {
    const routes = [...catalogRoutes, ...demoRoutes].filter((r) => pathParams(r.path).length > 0);
    const cases = fc.constantFrom(...routes).chain((route) => fc.tuple(fc.constant(route), fc.constantFrom(...pathParams(route.path)), badPathSegment));
    await fc.assert(
      fc.asyncProperty(cases, async ([route, param, segment]) => {
        const path = expressPath(route.path).replace(`:${param}`, segment);
        const req = env.http[route.method](path);
        if (route.auth === 'bearer') req.set(a.auth);
        const res = await req;
        expect(res.status, `${route.method} ${path}`).toBe(400);
        expect(res.body).toEqual({ error: expect.any(String) });
        if (segment.includes('%00')) expect(res.body.error).toContain(param);
      }),
      { numRuns: 60 },
    );
  });

  it('query parameters with NUL are a 400 naming the parameter', async () => {
    const search = await env.http.post('/search?limit=5%00').send({ keyphrases: [{ text: 'x', include: true }] });
    expect(search.status).toBe(400);
    expect(search.body.error).toContain('limit');
    for (const name of ['page', 'limit']) {
      const res = await env.http.get(`/demo/events?${name}=1%00`).set(a.auth);
      expect(res.status, name).toBe(400);
      expect(res.body.error).toContain(name);
    }
  });

  it("the bots' event and market lookups refuse NUL and lone surrogates (also %-encoded in a link) as bad input", async () => {
    const ctx = { database: env.database };
    for (const ref of ['a\u0000b', '\ud800slug', 'https://polymarket.com/event/us-%00-election', 'https://polymarket.com/event/x%ED%A0%80']) {
      await expect(findEvent({ ctx, input: { ref } }), ref).rejects.toMatchObject({ kind: ref.includes('%ED') ? 'not_found' : 'validation' });
    }
    for (const marketId of ['1\u00002', '\udc00']) {
      await expect(findMarket({ ctx, input: { marketId } }), marketId).rejects.toMatchObject({ kind: 'validation' });
    }
  });
});

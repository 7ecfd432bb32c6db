import fc from 'fast-check';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoRoutes } from '../../src/http/routes/demo.js';
import { catalogRoutes } from '../../src/http/routes/search.js';
import { CreateDemoWebhookInput } from '../../src/services/demo/schemas.js';
import { SearchByKeyphrasesInput, SearchByTagsInput } from '../../src/services/search/schemas.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv({}, () => ({ extraRoutes: [...catalogRoutes, ...demoRoutes] }));
  a = await env.newAccount();
});
afterAll(() => env?.close());

const endpoints: { path: string; schema: z.ZodType; auth: boolean }[] = [
  { path: '/search', schema: SearchByKeyphrasesInput, auth: false },
  { path: '/search/tag-slugs', schema: SearchByTagsInput, auth: false },
  { path: '/demo/webhooks', schema: CreateDemoWebhookInput, auth: true },
];

describe(`random bodies to the search and demo POST endpoints (${engineName})`, () => {
  for (const endpoint of endpoints) {
    it(`POST ${endpoint.path} answers 4xx {error} and stores nothing`, async () => {
      const bodies = fc
        .anything({ maxDepth: 3 })
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
});

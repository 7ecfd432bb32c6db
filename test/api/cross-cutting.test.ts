import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv({ BODY_LIMIT_BYTES: '2048' });
  a = await env.newAccount();
});
afterAll(() => env?.close());

describe(`cross-cutting behaviour (${engineName})`, () => {
  it('answers 413 {error} above the body limit and stores nothing', async () => {
    const res = await env.http
      .post('/watchlists')
      .set(a.auth)
      .send({ name: 'x'.repeat(5000) })
      .expect(413);
    expect(res.body).toEqual({ error: 'Request body too large: at most 2048 bytes' });
    expect((await env.http.get('/watchlists').set(a.auth)).body.watchLists).toEqual([]);
  });

  it('answers malformed JSON with 400 {error}', async () => {
    const res = await env.http.post('/watchlists').set(a.auth).set('content-type', 'application/json').send('{"name": ').expect(400);
    expect(res.body).toEqual({ error: 'Malformed JSON in request body' });
  });

  it('answers unknown routes with 404 {error}', async () => {
    const res = await env.http.get('/no/such/thing').expect(404);
    expect(res.body.error).toMatch(/No route for GET \/no\/such\/thing/);
  });

  it('sends security headers and a request id, echoing a sane incoming one', async () => {
    const res = await env.http.get('/healthz').set('X-Request-Id', 'abc-123').expect(200, { status: 'ok' });
    expect(res.headers['x-request-id']).toBe('abc-123');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-powered-by']).toBeUndefined();
    const generated = await env.http.get('/healthz').set('X-Request-Id', 'bad id with spaces');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers readiness and Prometheus metrics', async () => {
    await env.http.get('/readyz').expect(200, { status: 'ready' });
    await env.http.get('/me').set(a.auth).expect(200);
    const metrics = await env.http.get('/metrics').expect(200);
    expect(metrics.headers['content-type']).toMatch(/text\/plain/);
    expect(metrics.text).toMatch(/oddswatch_http_requests_total\{method="GET",route="\/me",status="200"\} \d+/);
    expect(metrics.text).toContain('oddswatch_process_resident_memory_bytes');
  });

  it('serves an OpenAPI 3.1 document covering every route, and the /docs page', async () => {
    const doc = (await env.http.get('/openapi.json').expect(200)).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ version: '0.0.1', license: { name: 'ISC' } });
    for (const path of ['/watchlists', '/watchlists/{watchlistId}', '/watchlists/{watchlistId}/query/tags', '/watchlists/delete', '/subscriptions', '/subscriptions/{watchlistId}', '/subscription/{subscriptionId}', '/subscription/{subscriptionId}/pause', '/tokens', '/me', '/webhook-secret/rotate']) {
      expect(doc.paths[path], path).toBeDefined();
    }
    const createSub = doc.paths['/subscriptions'].post;
    expect(createSub.requestBody.content['application/json'].schema).toBeDefined();
    expect(Object.keys(createSub.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '429']));
    expect(doc.components.schemas.Subscription.required).toEqual(
      expect.arrayContaining(['channels', 'createdAt', 'expiresAt', 'status', 'subscriptionId', 'subscriptionScope', 'subscriptionTypeConfig', 'triggerType', 'watchlistId', 'watchlistName']),
    );
    const page = await env.http.get('/docs').expect(200);
    expect(page.text).toContain('/openapi.json');
  });
});

describe(`rate limits (${engineName})`, () => {
  it('limits per token with RateLimit headers and a 429 {error} with Retry-After', async () => {
    const limited = await createTestEnv({ RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const acct = await limited.newAccount();
      const other = await limited.newAccount();
      for (let i = 0; i < 3; i++) {
        const ok = await limited.http.get('/me').set(acct.auth).expect(200);
        expect(ok.headers['ratelimit-limit']).toBe('3');
        expect(ok.headers['ratelimit-remaining']).toBe(String(2 - i));
      }
      const res = await limited.http.get('/me').set(acct.auth).expect(429);
      expect(res.body.error).toMatch(/Rate limit exceeded/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      await limited.http.get('/me').set(other.auth).expect(200);
    } finally {
      await limited.close();
    }
  });
});

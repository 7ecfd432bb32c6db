import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertToken } from '../../src/services/tokens/index.js';
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
    // Pages served over plain http on a LAN address must load their own scripts (src/http/app.ts).
    expect(res.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    expect(res.headers['x-powered-by']).toBeUndefined();
    const generated = await env.http.get('/healthz').set('X-Request-Id', 'bad id with spaces');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  // ETags only where a conditional request can use them (src/http/etags.ts, docs/decisions.md).
  it('sends an ETag with answers to GET and HEAD, which If-None-Match turns into a 304, and none with answers to writes', async () => {
    const created = await env.http.post('/watchlists').set(a.auth).send({ name: 'etags', query: { tags: [{ tagSlug: 'politics', include: true }], searchMatchOperator: 'OR' } }).expect(201);
    expect(created.headers.etag).toBeUndefined();
    const id = created.body.watchList.id as string;
    const renamed = await env.http.patch(`/watchlists/${id}`).set(a.auth).send({ name: 'etags renamed' }).expect(200);
    expect(renamed.headers.etag).toBeUndefined();
    const refused = await env.http.patch(`/watchlists/${id}`).set(a.auth).send({}).expect(400);
    expect(refused.headers.etag).toBeUndefined();
    // Even when the write's request names an ETag it would match: a write is never answered 304.
    const read = await env.http.get(`/watchlists/${id}`).set(a.auth).expect(200);
    expect(read.headers.etag).toMatch(/^W\/"/);
    await env.http.get(`/watchlists/${id}`).set(a.auth).set('If-None-Match', read.headers.etag!).expect(304);
    const head = await env.http.head(`/watchlists/${id}`).set(a.auth).expect(200);
    expect(head.headers.etag).toBe(read.headers.etag);
    const write = await env.http.patch(`/watchlists/${id}`).set(a.auth).set('If-None-Match', read.headers.etag!).send({ name: 'etags renamed' });
    expect(write.status).toBe(200);
    expect(write.headers.etag).toBeUndefined();
    expect((await env.http.get('/no/such/thing')).headers.etag).toMatch(/^W\/"/);
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
    for (const path of ['/watchlists', '/watchlists/{watchlistId}', '/watchlists/{watchlistId}/query/tags', '/watchlists/delete', '/subscriptions', '/subscriptions/{watchlistId}', '/subscription/{subscriptionId}', '/subscription/{subscriptionId}/pause', '/tokens', '/me', '/webhook-secret/rotate', '/notifications/{notificationId}/deliveries', '/subscription/{subscriptionId}/notifications', '/channels/test']) {
      expect(doc.paths[path], path).toBeDefined();
    }
    const createSub = doc.paths['/subscriptions'].post;
    expect(createSub.requestBody.content['application/json'].schema).toBeDefined();
    expect(Object.keys(createSub.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '429']));
    expect(doc.components.schemas.Subscription.required).toEqual(
      expect.arrayContaining(['channels', 'createdAt', 'expiresAt', 'status', 'subscriptionId', 'subscriptionScope', 'subscriptionTypeConfig', 'triggerType', 'watchlistId', 'watchlistName']),
    );
    const historyRoute = doc.paths['/subscription/{subscriptionId}/notifications'].get;
    expect(historyRoute.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['subscriptionId', 'limit', 'before']));
    expect(Object.keys(historyRoute.responses)).toEqual(expect.arrayContaining(['200', '400', '404']));
    expect(doc.components.schemas.HistoryEntry.required).toEqual(expect.arrayContaining(['id', 'payload', 'detectedAt', 'deliveries']));
    const testSend = doc.paths['/channels/test'].post;
    expect(testSend.requestBody.content['application/json'].schema).toBeDefined();
    expect(doc.components.schemas.TestSendResult.required).toEqual(['ok', 'statusCode', 'error', 'durationMs']);
    const page = await env.http.get('/docs').expect(200);
    expect(page.text).toContain('/openapi.json');
  });
});

describe(`rate limits (${engineName})`, () => {
  it('limits per account across all of its tokens, with RateLimit headers and a 429 {error} with Retry-After', async () => {
    const limited = await createTestEnv({ RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const acct = await limited.newAccount();
      const other = await limited.newAccount();
      const second = await insertToken(limited.database.db, acct.userId, 'second', null);
      const tokens = [acct.auth, { Authorization: `Bearer ${second.token}` }];
      for (let i = 0; i < 3; i++) {
        const ok = await limited.http.get('/me').set(tokens[i % 2]!).expect(200);
        expect(ok.headers['ratelimit-limit']).toBe('3');
        expect(ok.headers['ratelimit-remaining']).toBe(String(2 - i));
      }
      for (const auth of tokens) {
        const res = await limited.http.get('/me').set(auth).expect(429);
        expect(res.body.error).toMatch(/Rate limit exceeded: at most 3 requests a minute/);
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
      // A fresh token does not buy a fresh budget either.
      const third = await insertToken(limited.database.db, acct.userId, 'third', null);
      await limited.http.get('/me').set({ Authorization: `Bearer ${third.token}` }).expect(429);
      await limited.http.get('/me').set(other.auth).expect(200);
    } finally {
      await limited.close();
    }
  });

  it('limits requests whose token is refused per client address, apart from valid accounts', async () => {
    const limited = await createTestEnv({ RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const acct = await limited.newAccount();
      const guesses = [`Bearer ow_${'a'.repeat(43)}`, 'Bearer nonsense', undefined];
      for (const header of guesses) {
        const req = limited.http.get('/me');
        const res = await (header ? req.set('Authorization', header) : req).expect(401);
        expect(res.headers['ratelimit-remaining']).toBeDefined();
      }
      const res = await limited.http.get('/me').set('Authorization', `Bearer ow_${'b'.repeat(43)}`).expect(429);
      expect(res.body.error).toMatch(/Rate limit exceeded/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      // Nothing was stored half-way and a real account from the same address keeps its own budget.
      await limited.http.get('/me').set(acct.auth).expect(200);
    } finally {
      await limited.close();
    }
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY names the proxy, so rotating it does not bypass the search limit', async () => {
    const search = (on: TestEnv, forwardedFor: string) =>
      on.http.post('/search').set('X-Forwarded-For', forwardedFor).send({ keyphrases: [{ text: 'election' }] });

    const direct = await createTestEnv({ SEARCH_RATE_LIMIT_PER_MINUTE: '2' });
    try {
      expect((await search(direct, '203.0.113.1')).status).toBe(200);
      expect((await search(direct, '203.0.113.2')).status).toBe(200);
      const res = await search(direct, '203.0.113.3');
      expect(res.status).toBe(429);
      expect(res.body.error).toMatch(/Rate limit exceeded: at most 2 requests a minute/);
    } finally {
      await direct.close();
    }

    // Behind a trusted proxy on loopback, the address it forwards is the client.
    const proxied = await createTestEnv({ SEARCH_RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: 'loopback' });
    try {
      expect((await search(proxied, '203.0.113.1')).status).toBe(200);
      expect((await search(proxied, '203.0.113.1')).status).toBe(200);
      expect((await search(proxied, '203.0.113.1')).status).toBe(429);
      expect((await search(proxied, '203.0.113.2')).status).toBe(200);
      // A client in front of the proxy cannot pick its address by writing the header itself.
      expect((await search(proxied, '198.51.100.7, 203.0.113.1')).status).toBe(429);
    } finally {
      await proxied.close();
    }
  });

  it('refuses a TRUST_PROXY it does not understand, and "true" (which would trust any client)', async () => {
    const { parseConfig } = await import('../../src/config.js');
    expect(parseConfig({}).TRUST_PROXY).toBe(false);
    expect(parseConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(parseConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).TRUST_PROXY).toEqual(['loopback', '10.0.0.0/8']);
    expect(() => parseConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY="true": must be a number of proxy hops/);
    expect(() => parseConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(/not understood: 10.0.0.0\/33/);
    // Batched sends (#19): defaults, and a setting out of range named in the error.
    expect(parseConfig({})).toMatchObject({ DIGEST_HOUR: 9, BURST_MAX: 5, BURST_WINDOW_MS: 10_000 });
    expect(() => parseConfig({ DIGEST_HOUR: '24' })).toThrow(/DIGEST_HOUR="24"/);
    expect(() => parseConfig({ BURST_MAX: '0' })).toThrow(/BURST_MAX="0"/);
  });
});

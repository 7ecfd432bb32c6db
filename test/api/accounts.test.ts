import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IssuedToken, Me, TokenList, WebhookSecret } from '../../src/http/response-schemas.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { testClock } from '../support/wait.js';

let env: TestEnv;
const clock = testClock();
beforeAll(async () => {
  env = await createTestEnv({}, { now: clock.now });
});
afterAll(() => env?.close());

describe(`accounts and tokens (${engineName})`, () => {
  it('GET /me answers the calling account', async () => {
    const a = await env.newAccount();
    const res = await env.http.get('/me').set(a.auth).expect(200);
    expect(Me.parse(res.body)).toEqual({ userId: a.userId, createdAt: expect.any(String), links: { discord: null, telegram: null } });
  });

  it.each([
    ['no header', {}, /Missing Authorization header/],
    ['a malformed header', { Authorization: 'Token abc' }, /Malformed Authorization header/],
    ['an unknown token', { Authorization: `Bearer ow_${'a'.repeat(43)}` }, /Invalid token/],
    ['garbage', { Authorization: 'Bearer x' }, /Invalid token/],
  ])('answers 401 {error} for %s', async (_name, headers, message) => {
    const res = await env.http.get('/watchlists').set(headers).expect(401);
    expect(res.body).toEqual({ error: expect.stringMatching(message) });
  });

  it('issues a token shown once, lists it without the secret, and revokes it', async () => {
    const a = await env.newAccount();
    const created = await env.http.post('/tokens').set(a.auth).send({ name: 'ci' }).expect(201);
    const issued = IssuedToken.parse(created.body);
    expect(issued.token).toMatch(/^ow_[A-Za-z0-9_-]{43}$/);
    await env.http.get('/me').set({ Authorization: `Bearer ${issued.token}` }).expect(200);

    const list = TokenList.parse((await env.http.get('/tokens').set(a.auth).expect(200)).body);
    const listed = list.tokens.find((t) => t.id === issued.id)!;
    expect(listed).toMatchObject({ name: 'ci', prefix: issued.token.slice(0, 9), expiresAt: null });
    expect(JSON.stringify(list)).not.toContain(issued.token);

    await env.http.delete(`/tokens/${issued.id}`).set(a.auth).expect(200, {});
    const after = await env.http.get('/me').set({ Authorization: `Bearer ${issued.token}` }).expect(401);
    expect(after.body.error).toMatch(/revoked/);
    await env.http.delete(`/tokens/${issued.id}`).set(a.auth).expect(404);
  });

  it('refuses an expired token and records lastUsedAt', async () => {
    const a = await env.newAccount();
    const soon = new Date(clock.now() + 60_000).toISOString();
    const { body } = await env.http.post('/tokens').set(a.auth).send({ name: 'short', expiresAt: soon }).expect(201);
    await env.http.get('/me').set({ Authorization: `Bearer ${body.token}` }).expect(200);
    const listed = (await env.http.get('/tokens').set(a.auth)).body.tokens.find((t: { id: string }) => t.id === body.id);
    expect(listed.lastUsedAt).not.toBeNull();
    clock.advance(60_000);
    const res = await env.http.get('/me').set({ Authorization: `Bearer ${body.token}` }).expect(401);
    expect(res.body.error).toMatch(/expired/);
  });

  it('validates token input', async () => {
    const a = await env.newAccount();
    for (const bad of [{}, { name: '' }, { name: 'x', expiresAt: '2001-01-01T00:00:00Z' }, { name: 'x', expiresAt: 'soon' }]) {
      const res = await env.http.post('/tokens').set(a.auth).send(bad).expect(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
  });

  it('caps active tokens per account (MAX_TOKENS)', async () => {
    const small = await createTestEnv({ MAX_TOKENS: '2' });
    try {
      const a = await small.newAccount();
      await small.http.post('/tokens').set(a.auth).send({ name: 'two' }).expect(201);
      const res = await small.http.post('/tokens').set(a.auth).send({ name: 'three' }).expect(403);
      expect(res.body.error).toMatch(/MAX_TOKENS/);
    } finally {
      await small.close();
    }
  });

  it("another account's token is not found", async () => {
    const a = await env.newAccount();
    const b = await env.newAccount();
    const { body } = await env.http.post('/tokens').set(a.auth).send({ name: 'mine' }).expect(201);
    await env.http.delete(`/tokens/${body.id}`).set(b.auth).expect(404);
    await env.http.get('/me').set({ Authorization: `Bearer ${body.token}` }).expect(200);
  });

  it('shows and rotates the webhook signing secret', async () => {
    const a = await env.newAccount();
    const first = WebhookSecret.parse((await env.http.get('/webhook-secret').set(a.auth).expect(200)).body);
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const rotated = (await env.http.post('/webhook-secret/rotate').set(a.auth).expect(200)).body.secret;
    expect(rotated).not.toBe(first.secret);
    expect((await env.http.get('/webhook-secret').set(a.auth)).body.secret).toBe(rotated);
  });

  it('lets only admins create accounts', async () => {
    const admin = await env.newAccount({ isAdmin: true });
    const user = await env.newAccount();
    await env.http.post('/admin/accounts').set(user.auth).send({}).expect(403);
    const { body } = await env.http.post('/admin/accounts').set(admin.auth).send({ name: 'friend' }).expect(201);
    expect(Object.keys(body).sort()).toEqual(['token', 'userId']);
    await env.http.get('/me').set({ Authorization: `Bearer ${body.token}` }).expect(200);
  });
});

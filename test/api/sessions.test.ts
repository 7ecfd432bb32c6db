import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenList } from '../../src/http/response-schemas.js';
import { issueLoginCode } from '../../src/services/sessions/index.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { testClock } from '../support/wait.js';

let env: TestEnv;
const clock = testClock();
beforeAll(async () => {
  env = await createTestEnv({ TRUST_PROXY: '1' }, { now: clock.now });
});
afterAll(() => env?.close());

/** A browser of its own: supertest's agent keeps cookies between requests, as a browser does. */
const browser = () => supertest.agent(env.app);

async function signIn(a: TestAccount) {
  const b = browser();
  const res = await b.post('/sessions').send({ token: a.token }).expect(201);
  return { b, res, csrf: res.body.csrfToken as string };
}

describe(`web console sessions (${engineName})`, () => {
  it('POST /sessions with an API token sets an httpOnly, SameSite=Strict cookie and answers the CSRF token', async () => {
    const a = await env.newAccount();
    const { b, res } = await signIn(a);
    expect(res.body).toEqual({ csrfToken: expect.any(String), userId: a.userId, expiresAt: expect.any(String) });
    const cookie = res.headers['set-cookie']![0]!;
    expect(cookie).toMatch(/^ow_session=ows_[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/);
    expect(JSON.stringify(res.body)).not.toContain('ows_');
    const me = await b.get('/me').expect(200);
    expect(me.body.userId).toBe(a.userId);
  });

  it('marks the cookie Secure when the request came over https (through a trusted proxy)', async () => {
    const a = await env.newAccount();
    const res = await browser().post('/sessions').set('X-Forwarded-Proto', 'https').send({ token: a.token }).expect(201);
    expect(res.headers['set-cookie']![0]).toMatch(/; Secure/);
  });

  it('a cookie-authenticated change needs the X-CSRF-Token header; reads do not; Bearer calls never', async () => {
    const a = await env.newAccount();
    const { b, csrf } = await signIn(a);
    const refused = await b.post('/watchlists').send({ name: 'No header' }).expect(403);
    expect(refused.body.error).toMatch(/X-CSRF-Token/);
    await b.post('/watchlists').set('X-CSRF-Token', 'x'.repeat(43)).send({ name: 'Wrong header' }).expect(403);
    const listed = await b.get('/watchlists').expect(200);
    expect(JSON.stringify(listed.body)).not.toMatch(/No header|Wrong header/);
    await b.post('/watchlists').set('X-CSRF-Token', csrf).send({ name: 'With header' }).expect(201);
    await env.http.post('/watchlists').set(a.auth).send({ name: 'Bearer' }).expect(201);
  });

  it("one session's CSRF token does not work with another session's cookie", async () => {
    const a = await env.newAccount();
    const first = await signIn(a);
    const second = await signIn(a);
    await first.b.post('/watchlists').set('X-CSRF-Token', second.csrf).send({ name: 'Crossed' }).expect(403);
  });

  it('GET /tokens lists the session as kind "session"; revoking it signs that browser out', async () => {
    const a = await env.newAccount();
    const { b } = await signIn(a);
    const list = TokenList.parse((await env.http.get('/tokens').set(a.auth).expect(200)).body);
    const sessions = list.tokens.filter((t) => t.kind === 'session');
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ name: 'web console', prefix: expect.stringMatching(/^ows_/) });
    expect(list.tokens.filter((t) => t.kind === 'token')).toHaveLength(1);
    await env.http.delete(`/tokens/${sessions[0]!.id}`).set(a.auth).expect(200);
    const after = await b.get('/me').expect(401);
    expect(after.body.error).toMatch(/Session has ended/);
  });

  it('DELETE /sessions/current signs out and clears the cookie; a Bearer call has no session to end', async () => {
    const a = await env.newAccount();
    const { b, csrf } = await signIn(a);
    const res = await b.delete('/sessions/current').set('X-CSRF-Token', csrf).expect(200, {});
    expect(res.headers['set-cookie']![0]).toMatch(/^ow_session=;.*Expires=Thu, 01 Jan 1970/);
    await b.get('/me').expect(401);
    const bearer = await env.http.delete('/sessions/current').set(a.auth).expect(400);
    expect(bearer.body.error).toMatch(/not made with a session cookie/);
  });

  it('a session expires after 7 days', async () => {
    const a = await env.newAccount();
    const { b } = await signIn(a);
    clock.advance(7 * 24 * 3_600_000 + 1000);
    const res = await b.get('/me').expect(401);
    expect(res.body.error).toMatch(/Session has expired/);
  });

  it.each([
    ['no body', undefined, 400, /token|loginCode/],
    ['both fields', { token: 'a', loginCode: 'b' }, 400, /./],
    ['an unknown token', { token: `ow_${'a'.repeat(43)}` }, 401, /Invalid token/],
    ['a session secret as token', { token: `ows_${'a'.repeat(43)}` }, 401, /Invalid token/],
    ['an unknown login code', { loginCode: 'owl_nope' }, 401, /invalid, used or expired/],
  ])('refuses %s with 4xx {error}', async (_name, body, status, message) => {
    const res = await browser().post('/sessions').send(body).expect(status);
    expect(res.body).toEqual({ error: expect.stringMatching(message) });
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it("a session's secret is refused as a Bearer token, and an API token as the cookie", async () => {
    const a = await env.newAccount();
    const { res } = await signIn(a);
    const secret = /^ow_session=([^;]+)/.exec(res.headers['set-cookie']![0]!)![1]!;
    await supertest(env.app).get('/me').set('Authorization', `Bearer ${secret}`).expect(401);
    await supertest(env.app).get('/me').set('Cookie', `ow_session=${a.token}`).expect(401);
  });

  it('an empty session cookie (one a browser was told to clear) counts as none', async () => {
    const res = await supertest(env.app).get('/me').set('Cookie', 'ow_session=').expect(401);
    expect(res.body.error).toMatch(/Missing Authorization header/);
  });

  it('a login code works once, for 10 minutes', async () => {
    const a = await env.newAccount();
    const issued = await issueLoginCode({ ctx: a.ctx, now: new Date(clock.now()) });
    expect(issued.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/app/login#code=${issued.code}$`));
    const b = browser();
    const first = await b.post('/sessions').send({ loginCode: issued.code }).expect(201);
    expect(first.body.userId).toBe(a.userId);
    await b.get('/me').expect(200);
    const again = await browser().post('/sessions').send({ loginCode: issued.code }).expect(401);
    expect(again.body.error).toMatch(/invalid, used or expired/);

    const late = await issueLoginCode({ ctx: a.ctx, now: new Date(clock.now()) });
    clock.advance(10 * 60_000 + 1);
    await browser().post('/sessions').send({ loginCode: late.code }).expect(401);
  });
});

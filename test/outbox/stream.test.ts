import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { createSubscription, fire, fireMany, OUTBOX_SETTINGS } from './support.js';
import { expectNothingFor, testClock, waitFor } from '../support/wait.js';

let env: TestEnv;
// The app's and the stream's clock: token expiry happens when the test moves it.
const clock = testClock();
let server: http.Server;
let base: string;
beforeAll(async () => {
  env = await createTestEnv(
    { ...OUTBOX_SETTINGS, MAX_STREAMS_PER_ACCOUNT: '3' },
    { streamTiming: { heartbeatMs: 100, tokenCheckMs: 200 }, now: clock.now },
  );
  server = env.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await env?.close();
});

interface Sse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The server ended the stream. */
  ended: () => boolean;
  contentType: string | undefined;
  text: () => string;
  events: () => { id: string; event: string; data: { id: string; createdAt: string; payload: Record<string, unknown> } }[];
  close(): void;
}

function openStream(headers: Record<string, string>): Promise<Sse> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/notifications/stream`, { headers }, (res) => {
      let text = '';
      let ended = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (ended = true));
      res.on('error', () => {});
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        ended: () => ended,
        contentType: res.headers['content-type'],
        text: () => text,
        events: () =>
          text
            .split('\n\n')
            .filter((block) => block.includes('event: notification'))
            .map((block) => {
              const field = (name: string) => block.split('\n').find((l) => l.startsWith(`${name}: `))!.slice(name.length + 2);
              return { id: field('id'), event: field('event'), data: JSON.parse(field('data')) };
            }),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

describe(`notification stream (${engineName})`, () => {
  it('sends each new notification of the account only, with heartbeats, and resumes after Last-Event-ID', async () => {
    const a = await env.newAccount();
    const other = await env.newAccount();
    const sub = await createSubscription(env, a, [{ type: 'In App' }]);
    const otherSub = await createSubscription(env, other, [{ type: 'In App' }]);

    const live = await openStream(a.auth);
    expect(live.status).toBe(200);
    expect(live.contentType).toMatch(/^text\/event-stream/);
    const first = await fire(env, a, sub);
    await fire(env, other, otherSub);
    const second = await fire(env, a, sub);
    await waitFor(() => live.events().length >= 2);
    await waitFor(() => live.text().includes(': ping'));
    expect(live.events()).toEqual([
      { id: first.id, event: 'notification', data: { id: first.id, createdAt: expect.any(String), payload: first.payload } },
      { id: second.id, event: 'notification', data: { id: second.id, createdAt: expect.any(String), payload: second.payload } },
    ]);
    live.close();

    const third = await fire(env, a, sub);
    const resumed = await openStream({ ...a.auth, 'Last-Event-ID': first.id });
    await waitFor(() => resumed.events().length >= 2);
    const fourth = await fire(env, a, sub);
    await waitFor(() => resumed.events().length >= 3);
    await expectNothingFor(150, () => resumed.events().slice(3), { message: 'an event after the fourth' });
    expect(resumed.events().map((e) => e.id)).toEqual([second.id, third.id, fourth.id]);

    // A redelivery wakes the workers but is not a new notification for the stream.
    await env.database.rows(sql`update deliveries set status = 'FAILED' where notification_id = ${first.id}`);
    await env.http.post(`/notifications/${first.id}/redeliver`).set(a.auth).expect(200, {});
    const fifth = await fire(env, a, sub);
    await waitFor(() => resumed.events().length >= 4);
    expect(resumed.events().map((e) => e.id)).toEqual([second.id, third.id, fourth.id, fifth.id]);
    resumed.close();
  });

  it('sends notifications in the order they were written, even when they arrive together', async () => {
    const a = await env.newAccount();
    const sub = await createSubscription(env, a, [{ type: 'In App' }]);
    const live = await openStream(a.auth);
    // One commit, as the engine writes a batch of firings: 30 notices arrive at once.
    const written = await fireMany(env, a, sub, 30);
    await waitFor(() => live.events().length >= written.length);
    expect(live.events().map((e) => e.id)).toEqual(written);
    live.close();
  });

  it('refuses a stream without a valid Bearer token', async () => {
    const res = await openStream({});
    expect(res.status).toBe(401);
    res.close();
  });

  it('caps the open streams of an account with 429 and Retry-After; closing one frees a slot', async () => {
    const a = await env.newAccount();
    const other = await env.newAccount();
    const open = [await openStream(a.auth), await openStream(a.auth), await openStream(a.auth)];
    expect(open.map((s) => s.status)).toEqual([200, 200, 200]);

    const refused = await openStream(a.auth);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    await waitFor(() => refused.ended());
    expect(JSON.parse(refused.text())).toEqual({
      error: 'Too many open streams: an account may keep 3 open at once (MAX_STREAMS_PER_ACCOUNT); close one first',
    });
    // A second token of the same account is the same account.
    const token = await env.http.post('/tokens').set(a.auth).send({ name: 'second' }).expect(201);
    const viaSecondToken = await openStream({ Authorization: `Bearer ${token.body.token}` });
    expect(viaSecondToken.status).toBe(429);
    viaSecondToken.close();
    // Another account is not affected.
    const others = await openStream(other.auth);
    expect(others.status).toBe(200);

    open[0]!.close();
    let again: Sse | undefined;
    await waitFor(async () => {
      again?.close();
      again = await openStream(a.auth);
      return again.status === 200;
    });
    // The freed slot is taken again: the account is back at its cap.
    expect((await openStream(a.auth)).status).toBe(429);
    for (const s of [...open, again!, others]) s.close();
  });

  it("takes the web console's session cookie, and ends the stream when the browser signs out", async () => {
    const a = await env.newAccount();
    const signedIn = await env.http.post('/sessions').send({ token: a.token }).expect(201);
    const cookie = /^ow_session=[^;]+/.exec(signedIn.headers['set-cookie']![0]!)![0];
    const live = await openStream({ Cookie: cookie });
    expect(live.status).toBe(200);
    const sub = await createSubscription(env, a, [{ type: 'In App' }]);
    const fired = await fire(env, a, sub);
    await waitFor(() => live.events().length >= 1);
    expect(live.events().map((e) => e.id)).toEqual([fired.id]);

    await env.http.delete('/sessions/current').set('Cookie', cookie).set('X-CSRF-Token', signedIn.body.csrfToken).expect(200);
    await waitFor(() => live.ended());
  });

  it('ends a stream within seconds once its token is revoked, and keeps the streams of other tokens', async () => {
    const a = await env.newAccount();
    const issued = await env.http.post('/tokens').set(a.auth).send({ name: 'to revoke' }).expect(201);
    const revokedStream = await openStream({ Authorization: `Bearer ${issued.body.token}` });
    const keptStream = await openStream(a.auth);
    expect([revokedStream.status, keptStream.status]).toEqual([200, 200]);

    await env.http.delete(`/tokens/${issued.body.id}`).set(a.auth).expect(200);
    const revokedAt = Date.now();
    await waitFor(() => revokedStream.ended());
    expect(Date.now() - revokedAt).toBeLessThan(3000);

    // Nothing more reaches the ended stream; the other token's stream still gets notifications.
    const sub = await createSubscription(env, a, [{ type: 'In App' }]);
    const after = await fire(env, a, sub);
    await waitFor(() => keptStream.events().length >= 1);
    expect(keptStream.events().map((e) => e.id)).toEqual([after.id]);
    expect(keptStream.ended()).toBe(false);
    expect(revokedStream.events()).toEqual([]);
    keptStream.close();
  });

  it('a notification made while the replay after Last-Event-ID runs comes after the replayed ones, in id order', async () => {
    const a = await env.newAccount();
    const sub = await createSubscription(env, a, [{ type: 'In App' }]);
    // An open stream makes the service look up each announced notification, one at a time, so a
    // burst leaves a queue of announcements behind it: some arrive while the resumed stream replays.
    const watching = await openStream(a.auth);
    const [from, ...missed] = await fireMany(env, a, sub, 300);
    const resumed = await openStream({ ...a.auth, 'Last-Event-ID': from! });
    const late = await fire(env, a, sub);
    await waitFor(() => resumed.events().length >= missed.length + 1, { timeoutMs: 20_000 });
    expect(resumed.events().map((e) => e.id)).toEqual([...missed, late.id]);
    resumed.close();
    watching.close();
  });

  it('ends a stream within seconds once its token expires', async () => {
    const a = await env.newAccount();
    const expiresAt = new Date(clock.now() + 60_000);
    const issued = await env.http.post('/tokens').set(a.auth).send({ name: 'short', expiresAt: expiresAt.toISOString() }).expect(201);
    const live = await openStream({ Authorization: `Bearer ${issued.body.token}` });
    expect(live.status).toBe(200);
    await expectNothingFor(300, () => live.ended(), { message: 'the end of a stream whose token has not expired' });
    clock.advance(60_000);
    const expiredAt = Date.now();
    await waitFor(() => live.ended());
    expect(clock.now()).toBeGreaterThanOrEqual(expiresAt.getTime());
    expect(Date.now() - expiredAt).toBeLessThan(3000);
  });
});

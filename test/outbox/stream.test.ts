import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createNotificationStream, type NotificationStream } from '../../src/http/notification-stream.js';
import { notificationRoutes } from '../../src/http/routes/notifications.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { createSubscription, fire, fireMany, OUTBOX_SETTINGS, waitFor } from './support.js';

let env: TestEnv;
let stream: NotificationStream;
let server: http.Server;
let base: string;
beforeAll(async () => {
  env = await createTestEnv(OUTBOX_SETTINGS, (database) => {
    stream = createNotificationStream({ database, logger: createLogger('silent'), heartbeatMs: 100 });
    return { extraRoutes: notificationRoutes, streams: [stream.route] };
  });
  server = env.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await stream?.close();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await env?.close();
});

interface Sse {
  status: number;
  contentType: string | undefined;
  text: () => string;
  events: () => { id: string; event: string; data: { id: string; createdAt: string; payload: Record<string, unknown> } }[];
  close(): void;
}

function openStream(headers: Record<string, string>): Promise<Sse> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/notifications/stream`, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', () => {});
      resolve({
        status: res.statusCode ?? 0,
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
    await new Promise((r) => setTimeout(r, 150));
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
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSenders } from '../../src/delivery/senders/index.js';
import { DeliveryList, NotificationList } from '../../src/http/routes/notifications.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { json, startReceiver, type Receiver } from '../delivery/support/receiver.js';
import { createSubscription, fire, OUTBOX_SETTINGS, startWorker } from './support.js';
import { waitFor } from '../support/wait.js';

let env: TestEnv;
const receivers: Receiver[] = [];
beforeAll(async () => {
  env = await createTestEnv(OUTBOX_SETTINGS, { streamTiming: { heartbeatMs: 100 } });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await env?.close();
});

async function channelStatuses(auth: { Authorization: string }, subscriptionId: string) {
  const res = await env.http.get(`/subscription/${subscriptionId}`).set(auth).expect(200);
  return (res.body.subscription.channels as { status?: string }[]).map((c) => c.status);
}

async function deliveriesOf(auth: { Authorization: string }, id: string) {
  return DeliveryList.parse((await env.http.get(`/notifications/${id}/deliveries`).set(auth).expect(200)).body).deliveries;
}

describe(`inbox API (${engineName})`, () => {
  it('lists the inbox newest first, pages with before/nextBefore, filters unread, and marks read (In App → READ)', async () => {
    const a = await env.newAccount();
    const sub = await createSubscription(env, a, [{ type: 'In App' }]);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await fire(env, a, sub)).id);
    const worker = await startWorker(env.database, env.config);
    try {
      await waitFor(async () => (await deliveriesOf(a.auth, ids[2]!))[0]?.status === 'SENT');
    } finally {
      await worker.stop();
    }
    expect(await channelStatuses(a.auth, sub.subscriptionId)).toEqual(['SENT']);

    const first = NotificationList.parse((await env.http.get('/notifications?limit=2').set(a.auth).expect(200)).body);
    expect(first.notifications.map((n) => n.id)).toEqual([ids[2], ids[1]]);
    expect(first.notifications[0]).toMatchObject({ readAt: null, payload: { subscriptionId: sub.subscriptionId, type: 'price_notification' } });
    expect(first.nextBefore).toBe(ids[1]);
    const second = NotificationList.parse(
      (await env.http.get(`/notifications?limit=2&before=${first.nextBefore}`).set(a.auth).expect(200)).body,
    );
    expect(second).toEqual({ notifications: [expect.objectContaining({ id: ids[0] })], nextBefore: null });

    await env.http.post(`/notifications/${ids[2]}/read`).set(a.auth).expect(200, {});
    await env.http.post(`/notifications/${ids[2]}/read`).set(a.auth).expect(200, {});
    const unread = NotificationList.parse((await env.http.get('/notifications?unread=true').set(a.auth).expect(200)).body);
    expect(unread.notifications.map((n) => n.id)).toEqual([ids[1], ids[0]]);
    const all = NotificationList.parse((await env.http.get('/notifications').set(a.auth).expect(200)).body);
    expect(all.notifications[0]!.readAt).toEqual(expect.any(String));
    expect((await deliveriesOf(a.auth, ids[2]!))[0]!.status).toBe('READ');
    expect(await channelStatuses(a.auth, sub.subscriptionId)).toEqual(['READ']);
  });

  it.each([['limit=0'], ['limit=201'], ['limit=abc'], ['unread=maybe'], ['limit=1.5']])('answers 400 {error} for ?%s', async (query) => {
    const a = await env.newAccount();
    const res = await env.http.get(`/notifications?${query}`).set(a.auth).expect(400);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it('shows every attempt of a failed webhook, redelivers it, and answers 409 when nothing failed', async () => {
    const a = await env.newAccount();
    let healthy = false;
    const hook: Receiver = await startReceiver((_req, res) => json(res, healthy ? 200 : 503, {}));
    receivers.push(hook);
    const sub = await createSubscription(env, a, [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const worker = await startWorker(env.database, env.config);
    try {
      const { id } = await fire(env, a, sub);
      await waitFor(async () => (await deliveriesOf(a.auth, id))[1]?.status === 'FAILED');
      const [inApp, webhook] = await deliveriesOf(a.auth, id);
      expect(inApp).toMatchObject({ channel: 'In App', status: 'SENT' });
      expect(webhook).toMatchObject({ channel: 'Webhook', status: 'FAILED' });
      expect(webhook!.attempts).toHaveLength(3);
      expect(webhook!.attempts[0]).toEqual({ at: expect.any(String), statusCode: 503, error: expect.any(String), durationMs: expect.any(Number) });
      expect(await channelStatuses(a.auth, sub.subscriptionId)).toEqual(['SENT', 'FAILED']);

      healthy = true;
      await env.http.post(`/notifications/${id}/redeliver`).set(a.auth).expect(200, {});
      await waitFor(async () => (await deliveriesOf(a.auth, id))[1]?.status === 'SENT');
      expect((await deliveriesOf(a.auth, id))[1]!.attempts.map((t) => t.statusCode)).toEqual([503, 503, 503, 200]);
      expect(new Set(hook.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
      expect(await channelStatuses(a.auth, sub.subscriptionId)).toEqual(['SENT', 'SENT']);
      const again = await env.http.post(`/notifications/${id}/redeliver`).set(a.auth).expect(409);
      expect(again.body).toEqual({ error: expect.any(String) });
    } finally {
      await worker.stop();
    }
  });

  it('marks a Telegram delivery BLOCKED_BY_USER on 403 and redelivers it', async () => {
    const a = await env.newAccount();
    let blocked = true;
    const telegram = await startReceiver((_req, res) =>
      blocked
        ? json(res, 403, { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' })
        : json(res, 200, { ok: true, result: { message_id: 1 } }),
    );
    receivers.push(telegram);
    const sub = await createSubscription(env, a, [{ type: 'Telegram', settings: { telegramChatId: 4242 } }]);
    const senders = createSenders({ allowPrivateUrls: true, timeoutMs: 30_000, telegram: { botToken: '123:abc', apiRoot: telegram.url } });
    const worker = await startWorker(env.database, env.config, { senders });
    try {
      const { id } = await fire(env, a, sub);
      await waitFor(async () => (await deliveriesOf(a.auth, id))[0]?.status === 'BLOCKED_BY_USER');
      expect(telegram.requests).toHaveLength(1);
      expect(await channelStatuses(a.auth, sub.subscriptionId)).toEqual(['BLOCKED_BY_USER']);
      blocked = false;
      await env.http.post(`/notifications/${id}/redeliver`).set(a.auth).expect(200, {});
      await waitFor(async () => (await deliveriesOf(a.auth, id))[0]?.status === 'SENT');
      expect(await channelStatuses(a.auth, sub.subscriptionId)).toEqual(['SENT']);
    } finally {
      await worker.stop();
    }
  });

  it("answers 404 for another account's notification on every endpoint", async () => {
    const owner = await env.newAccount();
    const other = await env.newAccount();
    const sub = await createSubscription(env, owner, [{ type: 'In App' }]);
    const { id } = await fire(env, owner, sub);
    await env.http.post(`/notifications/${id}/read`).set(other.auth).expect(404);
    await env.http.get(`/notifications/${id}/deliveries`).set(other.auth).expect(404);
    await env.http.post(`/notifications/${id}/redeliver`).set(other.auth).expect(404);
    await env.http.get('/notifications/no-such-id/deliveries').set(owner.auth).expect(404);
    const listed = NotificationList.parse((await env.http.get('/notifications').set(other.auth).expect(200)).body);
    expect(listed.notifications).toEqual([]);
    expect((await env.http.get('/notifications')).status).toBe(401);
  });
});

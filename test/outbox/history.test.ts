import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SubscriptionHistory } from '../../src/http/routes/notifications.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { json, startReceiver, type Receiver } from '../delivery/support/receiver.js';
import { createSubscription, fire, fireMany, OUTBOX_SETTINGS, startWorker, waitFor } from './support.js';

let env: TestEnv;
const receivers: Receiver[] = [];
beforeAll(async () => {
  env = await createTestEnv(OUTBOX_SETTINGS);
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await env?.close();
});

async function history(auth: { Authorization: string }, subscriptionId: string, query = '') {
  const res = await env.http.get(`/subscription/${subscriptionId}/notifications${query}`).set(auth).expect(200);
  return SubscriptionHistory.parse(res.body);
}

describe(`rule history API (${engineName})`, () => {
  it("lists a rule's firings newest first with each channel's status and attempts, a page at a time", async () => {
    const a = await env.newAccount();
    let healthy = false;
    const hook = await startReceiver((_req, res) => json(res, healthy ? 200 : 503, {}));
    receivers.push(hook);
    const sub = await createSubscription(env, a, [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const other = await createSubscription(env, a, [{ type: 'In App' }]);
    // A send timeout no loaded machine reaches: the attempts shown are the receiver's answers.
    const worker = await startWorker(env.database, { ...env.config, WEBHOOK_TIMEOUT_MS: 30_000 });
    try {
      const failed = await fire(env, a, sub);
      await waitFor(async () => (await history(a.auth, sub.subscriptionId)).notifications[0]?.deliveries[1]?.status === 'FAILED');
      healthy = true;
      const later = [(await fire(env, a, sub)).id, (await fire(env, a, sub)).id];
      await fire(env, a, other);
      // Every channel settled, In App too: it may be claimed in a later batch than the webhook.
      await waitFor(async () =>
        (await history(a.auth, sub.subscriptionId)).notifications.every(
          (n) => n.deliveries.every((d) => d.status !== 'PENDING') && (n.deliveries[1]?.status === 'SENT' || n.id === failed.id),
        ),
      );

      const first = await history(a.auth, sub.subscriptionId, '?limit=2');
      expect(first.notifications.map((n) => n.id)).toEqual([later[1], later[0]]);
      expect(first.nextBefore).toBe(later[0]);
      expect(first.notifications[0]).toMatchObject({
        payload: { subscriptionId: sub.subscriptionId, type: 'price_notification' },
        detectedAt: expect.any(String),
        deliveries: [
          { channel: 'In App', status: 'SENT', attempts: [{ statusCode: null, error: null }] },
          { channel: 'Webhook', status: 'SENT', attempts: [{ statusCode: 200, error: null }] },
        ],
      });
      expect(first.notifications[0]!.detectedAt).toBe(first.notifications[0]!.payload.detectedAt);

      const second = await history(a.auth, sub.subscriptionId, `?limit=2&before=${first.nextBefore}`);
      expect(second.nextBefore).toBeNull();
      expect(second.notifications.map((n) => n.id)).toEqual([failed.id]);
      const [inApp, webhook] = second.notifications[0]!.deliveries;
      expect(inApp).toMatchObject({ channel: 'In App', status: 'SENT' });
      expect(webhook).toMatchObject({ channel: 'Webhook', status: 'FAILED' });
      expect(webhook!.attempts.map((t) => t.statusCode)).toEqual([503, 503, 503]);
      expect(webhook!.attempts[0]).toEqual({ at: expect.any(String), statusCode: 503, error: expect.stringContaining('HTTP 503'), durationMs: expect.any(Number) });

      // The same deliveries as the per-notification endpoint shows.
      const single = await env.http.get(`/notifications/${failed.id}/deliveries`).set(a.auth).expect(200);
      expect(single.body.deliveries).toEqual(second.notifications[0]!.deliveries);
      expect((await history(a.auth, other.subscriptionId)).notifications).toHaveLength(1);
    } finally {
      await worker.stop();
    }
  });

  it('pages a long history without gaps or repeats and answers an empty one', async () => {
    const a = await env.newAccount();
    const sub = await createSubscription(env, a, [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: 'http://127.0.0.1:9/never' } }]);
    expect(await history(a.auth, sub.subscriptionId)).toEqual({ notifications: [], nextBefore: null });
    const ids = await fireMany(env, a, sub, 7);
    const seen: string[] = [];
    let before: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof history>> = await history(a.auth, sub.subscriptionId, `?limit=3${before ? `&before=${before}` : ''}`);
      for (const n of page.notifications) {
        expect(n.deliveries.map((d) => [d.channel, d.status, d.attempts.length])).toEqual([
          ['In App', 'PENDING', 0],
          ['Webhook', 'PENDING', 0],
        ]);
      }
      seen.push(...page.notifications.map((n) => n.id));
      before = page.nextBefore;
    } while (before);
    expect(seen).toEqual([...ids].sort().reverse());
    expect((await history(a.auth, sub.subscriptionId)).notifications).toHaveLength(7); // default limit 50
  });

  it('reads a page in the same number of queries whatever its size (no query per notification)', async () => {
    const a = await env.newAccount();
    const sub = await createSubscription(env, a, [{ type: 'In App' }, { type: 'In App' }]);
    await fireMany(env, a, sub, 25);
    const worker = await startWorker(env.database, env.config);
    try {
      await waitFor(async () => (await history(a.auth, sub.subscriptionId)).notifications.every((n) => n.deliveries.every((d) => d.attempts.length === 1)));
    } finally {
      await worker.stop();
    }
    // Counts the statements the real database is sent; nothing is stubbed.
    const selects = vi.spyOn(env.database.db, 'select');
    try {
      const queriesFor = async (limit: number) => {
        selects.mockClear();
        const page = await history(a.auth, sub.subscriptionId, `?limit=${limit}`);
        expect(page.notifications).toHaveLength(limit);
        return selects.mock.calls.length;
      };
      const small = await queriesFor(1);
      expect(await queriesFor(25)).toBe(small);
      expect(small).toBeLessThanOrEqual(5); // authentication, ownership, page, deliveries, attempts
    } finally {
      selects.mockRestore();
    }
  });

  it("answers 404 for another account's or an unknown rule, and 400 {error} for bad paging", async () => {
    const owner = await env.newAccount();
    const stranger = await env.newAccount();
    const sub = await createSubscription(env, owner, [{ type: 'In App' }]);
    await fire(env, owner, sub);
    const notFound = await env.http.get(`/subscription/${sub.subscriptionId}/notifications`).set(stranger.auth).expect(404);
    expect(notFound.body).toEqual({ error: 'Subscription not found' });
    await env.http.get('/subscription/no-such-rule/notifications').set(owner.auth).expect(404);
    await env.http.get(`/subscription/${sub.subscriptionId}/notifications`).expect(401);
    const gone = await createSubscription(env, owner, [{ type: 'In App' }]);
    await fire(env, owner, gone);
    await env.http.delete(`/subscription/${gone.subscriptionId}`).set(owner.auth).expect(200);
    await env.http.get(`/subscription/${gone.subscriptionId}/notifications`).set(owner.auth).expect(404);
    for (const query of ['limit=0', 'limit=201', 'limit=abc', 'limit=1.5', 'before=', `before=${'x'.repeat(201)}`, 'unread=true']) {
      const res = await env.http.get(`/subscription/${sub.subscriptionId}/notifications?${query}`).set(owner.auth);
      expect([query, res.status]).toEqual([query, 400]);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
  });
});

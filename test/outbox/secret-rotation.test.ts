import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { json, startReceiver, type ReceivedRequest, type Receiver } from '../delivery/support/receiver.js';
import { createSubscription, fire, OUTBOX_SETTINGS, startWorker } from './support.js';
import { testClock, waitFor } from '../support/wait.js';

// The worker's clock is the test's: the window passes when the test moves it, not by waiting.
const GRACE_MS = 60_000;

let env: TestEnv;
let receiver: Receiver;
beforeAll(async () => {
  env = await createTestEnv({ ...OUTBOX_SETTINGS, WEBHOOK_SECRET_GRACE_MS: String(GRACE_MS) });
  receiver = await startReceiver((_req, res) => json(res, 200, {}));
});
afterAll(async () => {
  await receiver?.close();
  await env?.close();
});

/** What a receiver configured with `secret` concludes, through the standardwebhooks library. */
function verifies(secret: string, req: ReceivedRequest): boolean {
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
  try {
    new Webhook(secret).verify(req.body, headers);
    return true;
  } catch {
    return false;
  }
}

describe(`signing-secret rotation (${engineName})`, () => {
  it('signs with the new and the previous secret during the grace window, and with the new one only after it', async () => {
    const clock = testClock();
    const worker = await startWorker(env.database, env.config, { now: clock.now });
    try {
      const a = await env.newAccount();
      const sub = await createSubscription(env, a, [{ type: 'Webhook', settings: { webhookUrl: `${receiver.url}/rotation` } }]);
      const received = (id: string) => waitFor(() => receiver.requests.find((r) => r.headers['webhook-id'] === id));

      const oldSecret: string = (await env.http.get('/webhook-secret').set(a.auth).expect(200)).body.secret;
      const before = await received((await fire(env, a, sub)).id);
      expect(verifies(oldSecret, before)).toBe(true);

      const rotated = await env.http.post('/webhook-secret/rotate').set(a.auth).expect(200);
      const rotatedAt = clock.now();
      const newSecret: string = rotated.body.secret;
      expect(newSecret).not.toBe(oldSecret);
      expect((await env.http.get('/webhook-secret').set(a.auth).expect(200)).body).toEqual({ secret: newSecret });

      // Within the window: a receiver still on the old secret and one already switched both accept.
      const during = await received((await fire(env, a, sub)).id);
      expect(clock.now() - rotatedAt).toBeLessThan(GRACE_MS);
      expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verifies(newSecret, during)).toBe(true);
      expect(verifies(oldSecret, during)).toBe(true);

      clock.advance(GRACE_MS - (clock.now() - rotatedAt) + 50);
      const after = await received((await fire(env, a, sub)).id);
      expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(verifies(newSecret, after)).toBe(true);
      expect(verifies(oldSecret, after)).toBe(false);
    } finally {
      await worker.stop();
    }
  });

  it('a second rotation within the window keeps only the secret it replaced', async () => {
    const worker = await startWorker(env.database, env.config);
    try {
      const a = await env.newAccount();
      const sub = await createSubscription(env, a, [{ type: 'Webhook', settings: { webhookUrl: `${receiver.url}/twice` } }]);
      const first: string = (await env.http.get('/webhook-secret').set(a.auth).expect(200)).body.secret;
      const second: string = (await env.http.post('/webhook-secret/rotate').set(a.auth).expect(200)).body.secret;
      const third: string = (await env.http.post('/webhook-secret/rotate').set(a.auth).expect(200)).body.secret;
      const { id } = await fire(env, a, sub);
      const req = await waitFor(() => receiver.requests.find((r) => r.headers['webhook-id'] === id));
      expect([verifies(third, req), verifies(second, req), verifies(first, req)]).toEqual([true, true, false]);
    } finally {
      await worker.stop();
    }
  });
});

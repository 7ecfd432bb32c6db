import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database } from '../../src/db/client.js';
import { writeNotification } from '../../src/delivery/enqueue.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { json, startReceiver, type Receiver } from '../delivery/support/receiver.js';
import { createSubscription, fire, fireMany, OUTBOX_SETTINGS, pricePayload, startWorker } from './support.js';
import { expectNothingFor, waitFor } from '../support/wait.js';

let env: TestEnv;
const receivers: Receiver[] = [];
beforeAll(async () => {
  env = await createTestEnv(OUTBOX_SETTINGS);
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await env?.close();
});

async function receiver(handler: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(handler);
  receivers.push(r);
  return r;
}

async function channelStatuses(auth: { Authorization: string }, subscriptionId: string) {
  const res = await env.http.get(`/subscription/${subscriptionId}`).set(auth).expect(200);
  return (res.body.subscription.channels as { type: string; status?: string }[]).map((c) => c.status);
}

async function deliveryRows(notificationId: string) {
  return env.database.rows<{ channel_type: string; status: string; attempts: number }>(
    sql`select channel_type, status, attempts from deliveries where notification_id = ${notificationId} order by position`,
  );
}

describe(`delivery worker (${engineName})`, () => {
  it('writes a notification once per dedupe key, with one PENDING delivery per channel', async () => {
    const a = await env.newAccount();
    const sub = await createSubscription(env, a, [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: 'http://127.0.0.1:9/hook' } }]);
    const payload = pricePayload(a, sub.subscriptionId, sub.watchlistId);
    const input = {
      accountId: a.userId,
      subscriptionId: sub.subscriptionId,
      type: 'price_notification' as const,
      payload,
      dedupeKey: `dedupe-${payload.detectedAtMs}`,
      channels: sub.channels.map((c) => ({ type: c.type, settings: c.settings ?? null })),
    };
    const first = await writeNotification(env.database.db, input);
    const again = await env.database.db.transaction(async (tx) => {
      const id = await writeNotification(tx, input);
      await tx.execute(sql`select 1`); // the duplicate did not abort the caller's transaction
      return id;
    });
    expect(again).toBe(first);
    expect(await deliveryRows(first)).toEqual([
      { channel_type: 'In App', status: 'PENDING', attempts: 0 },
      { channel_type: 'Webhook', status: 'PENDING', attempts: 0 },
    ]);
    expect(await channelStatuses(a.auth, sub.subscriptionId)).toEqual(['PENDING', 'PENDING']);
  });

  it('writes a batch whose deliveries need more statement parameters than PostgreSQL allows in one', async () => {
    const a = await env.newAccount();
    const sub = await createSubscription(env, a, [{ type: 'In App' }]);
    // 120 notifications × 100 channels = 12,000 delivery rows, 72,000 parameters in one insert.
    const ids = await fireMany(env, a, sub, 120, Array.from({ length: 100 }, () => ({ type: 'In App' as const })));
    expect(ids).toHaveLength(120);
    const [row] = await env.database.rows<{ n: number }>(
      sql`select count(*)::int as n from deliveries d join notifications n on n.id = d.notification_id where n.subscription_id = ${sub.subscriptionId}`,
    );
    expect(row!.n).toBe(12_000);
    // Not left for the workers of the next tests to drain first.
    await env.database.rows(sql`delete from notifications where subscription_id = ${sub.subscriptionId}`);
  });

  it('delivers a webhook signed with the account secret (Standard Webhooks), webhook-id = notification id', async () => {
    const a = await env.newAccount();
    const hook = await receiver((_req, res) => json(res, 200, { ok: true }));
    const sub = await createSubscription(env, a, [{ type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const worker = await startWorker(env.database, env.config);
    try {
      const { id, payload } = await fire(env, a, sub);
      const req = await waitFor(() => hook.requests.find((r) => r.headers['webhook-id'] === id));
      const { secret } = (await env.http.get('/webhook-secret').set(a.auth).expect(200)).body;
      const verified = new Webhook(secret).verify(req.body, req.headers as Record<string, string>);
      expect(verified).toEqual(payload);
      expect(req.headers['user-agent']).toBe('Oddswatch-Webhook/1.0');
      await waitFor(async () => (await deliveryRows(id))[0]?.status === 'SENT');
      expect(await channelStatuses(a.auth, sub.subscriptionId)).toEqual(['SENT']);
    } finally {
      await worker.stop();
    }
  });

  it.each([201, 204])('counts HTTP %i as sent', async (status) => {
    const a = await env.newAccount();
    const hook = await receiver((_req, res) => {
      res.writeHead(status);
      res.end();
    });
    const sub = await createSubscription(env, a, [{ type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const worker = await startWorker(env.database, env.config);
    try {
      const { id } = await fire(env, a, sub);
      await waitFor(async () => (await deliveryRows(id))[0]?.status === 'SENT');
      expect(hook.requests).toHaveLength(1);
    } finally {
      await worker.stop();
    }
  });

  it('retries a 500 three times about WEBHOOK_RETRY_DELAY_MS apart, then FAILED on the delivery and the channel', async () => {
    const a = await env.newAccount();
    const times: number[] = [];
    const hook = await receiver((_req, res) => {
      times.push(Date.now());
      json(res, 500, { error: 'down' });
    });
    const sub = await createSubscription(env, a, [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const worker = await startWorker(env.database, env.config);
    try {
      const { id } = await fire(env, a, sub);
      await waitFor(async () => (await deliveryRows(id))[1]?.status === 'FAILED');
      expect(await deliveryRows(id)).toEqual([
        { channel_type: 'In App', status: 'SENT', attempts: 1 },
        { channel_type: 'Webhook', status: 'FAILED', attempts: 3 },
      ]);
      expect(times).toHaveLength(3);
      for (let i = 1; i < 3; i++) {
        // Never sooner than the delay (how much later depends on the machine's load, not on the policy).
        expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(95);
      }
      expect(new Set(hook.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
      expect(await channelStatuses(a.auth, sub.subscriptionId)).toEqual(['SENT', 'FAILED']);
    } finally {
      await worker.stop();
    }
  });

  it("a channel shows its latest notification's delivery; edited channels keep the status of unchanged ones", async () => {
    const a = await env.newAccount();
    let failing = '';
    const hook = await receiver((req, res) => json(res, req.headers['webhook-id'] === failing ? 500 : 200, {}));
    const webhook = { type: 'Webhook' as const, settings: { webhookUrl: `${hook.url}/hook` } };
    const sub = await createSubscription(env, a, [{ type: 'In App' }, webhook]);
    expect(await channelStatuses(a.auth, sub.subscriptionId)).toEqual([undefined, undefined]);
    // Both fired before the worker starts: a worker already running could send the first before
    // the receiver knows to fail it (seen under load).
    const first = await fire(env, a, sub);
    failing = first.id;
    const second = await fire(env, a, sub);
    const worker = await startWorker(env.database, env.config);
    try {
      // The first notification fails its three tries after the second one was sent.
      await waitFor(async () => (await deliveryRows(first.id))[1]?.status === 'FAILED');
      await waitFor(async () => (await deliveryRows(second.id))[1]?.status === 'SENT');
      expect(await channelStatuses(a.auth, sub.subscriptionId)).toEqual(['SENT', 'SENT']);

      // The webhook moves to the front and a new webhook is added: the kept one keeps SENT.
      const other = { type: 'Webhook', settings: { webhookUrl: `${hook.url}/other` } };
      await env.http.patch(`/subscription/${sub.subscriptionId}`).set(a.auth).send({ channels: [webhook, other] }).expect(200);
      expect(await channelStatuses(a.auth, sub.subscriptionId)).toEqual(['SENT', undefined]);

      // Reading the inbox entry of the latest notification makes its In App channel READ.
      await env.http.patch(`/subscription/${sub.subscriptionId}`).set(a.auth).send({ channels: [{ type: 'In App' }, webhook] }).expect(200);
      await env.http.post(`/notifications/${second.id}/read`).set(a.auth).expect(200);
      expect(await channelStatuses(a.auth, sub.subscriptionId)).toEqual(['READ', 'SENT']);
    } finally {
      await worker.stop();
    }
  });

  it('a worker whose lease expired mid-send is taken over by another worker, with the same webhook-id', async () => {
    const a = await env.newAccount();
    let release: (() => void) | undefined;
    const hook = await receiver((_req, res) => {
      if (!release) {
        // The first worker's send hangs, as if it had crashed, until the test lets it finish.
        release = () => {
          if (!res.headersSent) json(res, 200, {});
        };
        return;
      }
      json(res, 200, {});
    });
    const sub = await createSubscription(env, a, [{ type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const first = await startWorker(env.database, env.config, { leaseMs: 300, workerId: 'first' });
    const { id } = await fire(env, a, sub);
    await waitFor(() => hook.requests.length === 1);
    const second = await startWorker(env.database, env.config, { workerId: 'second' });
    try {
      await waitFor(() => hook.requests.length === 2);
      await waitFor(async () => (await deliveryRows(id))[0]?.status === 'SENT');
      expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual([id, id]);
      release!();
      await first.stop();
      // The late first worker lost its lease: its result is not recorded over the second's.
      expect(await deliveryRows(id)).toEqual([{ channel_type: 'Webhook', status: 'SENT', attempts: 1 }]);
    } finally {
      release?.();
      await first.stop();
      await second.stop();
    }
  });

  it.runIf(engineName === 'postgres')('two workers competing on PostgreSQL (FOR UPDATE SKIP LOCKED) send each delivery once', async () => {
    const a = await env.newAccount();
    const hook = await receiver((_req, res) => json(res, 200, {}));
    const sub = await createSubscription(env, a, [{ type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await fire(env, a, sub)).id);
    const workers = await Promise.all([startWorker(env.database, env.config, { concurrency: 4 }), startWorker(env.database, env.config, { concurrency: 4 })]);
    try {
      await waitFor(() => hook.requests.length >= 40);
      await waitFor(async () => {
        const [row] = await env.database.rows<{ n: number }>(
          sql`select count(*)::int as n from deliveries where notification_id in ${sql.raw(`('${ids.join("','")}')`)} and status = 'SENT'`,
        );
        return row?.n === 40;
      });
      await expectNothingFor(300, () => hook.requests.slice(40), { message: 'a request beyond the 40 deliveries' });
      expect(hook.requests).toHaveLength(40);
      expect(new Set(hook.requests.map((r) => r.headers['webhook-id'])).size).toBe(40);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });
});

describe(`delivery worker stop (${engineName})`, () => {
  async function deliveryState(notificationId: string) {
    const [row] = await env.database.rows<{ status: string; attempts: number; claimed: boolean }>(
      sql`select status, attempts, lease_until is not null as claimed from deliveries where notification_id = ${notificationId}`,
    );
    return row;
  }

  it('waits for a send in flight and records it, leaving nothing claimed', async () => {
    const a = await env.newAccount();
    const hook = await receiver((_req, res) => void setTimeout(() => json(res, 200, { ok: true }), 300));
    const sub = await createSubscription(env, a, [{ type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const worker = await startWorker(env.database, env.config, { drainMs: 5000 });
    const { id } = await fire(env, a, sub);
    await waitFor(() => hook.requests.some((r) => r.headers['webhook-id'] === id));
    await worker.stop();
    expect(await deliveryState(id)).toEqual({ status: 'SENT', attempts: 1, claimed: false });
  });

  it('gives a send that has not answered by the drain limit back to the queue; the next worker sends it with the same id', async () => {
    const a = await env.newAccount();
    const held: import('node:http').ServerResponse[] = [];
    let answer = false;
    const hook = await receiver((_req, res) => (answer ? json(res, 200, { ok: true }) : held.push(res)));
    const sub = await createSubscription(env, a, [{ type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const worker = await startWorker(env.database, env.config, { drainMs: 200 });
    const { id } = await fire(env, a, sub);
    await waitFor(() => hook.requests.some((r) => r.headers['webhook-id'] === id));

    await worker.stop();
    // The stop returned while the receiver still held every request unanswered (the send timeout
    // is 30 s): it did not wait for the receiver.
    expect(held.length).toBeGreaterThan(0);
    expect(held.every((res) => !res.writableEnded)).toBe(true);
    expect(await deliveryState(id)).toEqual({ status: 'PENDING', attempts: 0, claimed: false });

    answer = true;
    for (const res of held) res.destroy();
    const next = await startWorker(env.database, env.config);
    try {
      await waitFor(async () => (await deliveryState(id))?.status === 'SENT');
      expect(hook.requests.filter((r) => r.headers['webhook-id'] === id)).toHaveLength(2);
    } finally {
      await next.stop();
    }
  });
});

describe(`delivery worker claims (${engineName})`, () => {
  // A database of its own: deliveries other tests left pending would be claimed here too.
  let own: TestEnv;
  beforeAll(async () => {
    own = await createTestEnv(OUTBOX_SETTINGS);
  });
  afterAll(async () => {
    await own?.close();
  });

  /**
   * The real database, with the worker's claim statements counted once answered (a wait for the
   * start claim then knows it is over: a hand-off or send that finishes while it still runs frees
   * a slot as if the queue had a backlog, and claims again, on a loaded machine).
   */
  function countingClaims(database: Database) {
    const dialect = new PgDialect();
    const counted = { claims: 0 };
    const rows = (<T extends Record<string, unknown>>(...args: Parameters<Database['rows']>) => {
      const answer = database.rows<T>(...args);
      if (!dialect.sqlToQuery(args[0]).sql.includes('pick_due_deliveries(')) return answer;
      return answer.finally(() => counted.claims++);
    }) satisfies Database['rows'];
    return { database: { ...database, rows }, counted };
  }

  it('sends a backlog larger than its concurrency without waiting for the poll', async () => {
    const a = await own.newAccount();
    const hook = await receiver((_req, res) => json(res, 200, {}));
    const sub = await createSubscription(own, a, [{ type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const ids = await fireMany(own, a, sub, 9);
    // The poll would come after a minute: every claim after the first is a freed slot's.
    const worker = await startWorker(own.database, own.config, { concurrency: 2, pollMs: 60_000 });
    try {
      await waitFor(() => hook.requests.length >= 9, { message: 'the nine webhooks' });
      expect(new Set(hook.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set(ids));
    } finally {
      await worker.stop();
    }
  });

  it('claims once per written firing when the queue keeps up, not again after each send and record', async () => {
    const a = await own.newAccount();
    const hook = await receiver((_req, res) => json(res, 200, {}));
    const sub = await createSubscription(own, a, [{ type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const { database, counted } = countingClaims(own.database);
    const worker = await startWorker(database, own.config, { pollMs: 60_000 });
    try {
      await waitFor(() => counted.claims === 1, { message: 'the first claim' });
      for (let i = 1; i <= 3; i++) {
        const { id } = await fire(own, a, sub);
        await waitFor(async () => (await statusOf(own, id)) === 'SENT', { message: `firing ${i} sent` });
        // Its send and its record each freed the slot: neither claimed again.
        await expectNothingFor(150, () => counted.claims > 1 + i && counted.claims, { message: 'a claim after the send' });
      }
      expect(hook.requests).toHaveLength(3);
      expect(counted.claims).toBe(4);
    } finally {
      await worker.stop();
    }
  });
});

async function statusOf(on: TestEnv, notificationId: string) {
  const [row] = await on.database.rows<{ status: string }>(sql`select status from deliveries where notification_id = ${notificationId}`);
  return row?.status;
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database } from '../../src/db/client.js';
import { writeNotificationsOnce } from '../../src/delivery/enqueue.js';
import { DeliveryHandoff, type HandoffReceiver } from '../../src/delivery/handoff.js';
import type { ClaimedWithContext } from '../../src/delivery/outbox-store.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { json, startReceiver, type Receiver } from '../delivery/support/receiver.js';
import { createSubscription, fire, firingInputs, OUTBOX_SETTINGS, startWorker } from './support.js';
import { expectNothingFor, waitFor } from '../support/wait.js';

// The in-process hand-off (src/delivery/handoff.ts): a firing write leases its deliveries to this
// process's worker and gives them to it after the commit, with no notice wake-up and no claim.

let env: TestEnv;
const receivers: Receiver[] = [];
beforeAll(async () => {
  // A database of its own: deliveries other test files leave pending would be claimed here too.
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

type Sub = Awaited<ReturnType<typeof createSubscription>>;

/**
 * Writes `count` firings of `sub` in one transaction as the engine's firing store does, handing off
 * through `handoff`; `during` runs inside the transaction after the outbox write (before COMMIT).
 */
async function fireHanded(handoff: DeliveryHandoff, a: TestAccount, sub: Sub, count = 1, during?: () => Promise<void>) {
  const handing = handoff.begin();
  try {
    const ids = await env.database.db.transaction(async (tx) => {
      const written = await writeNotificationsOnce(tx, firingInputs(a, sub, count), undefined, handing);
      await during?.();
      return written as string[];
    });
    handing?.committed();
    return ids;
  } catch (err) {
    handing?.aborted();
    throw err;
  }
}

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

async function deliveryRows(notificationId: string) {
  return env.database.rows<{ status: string; attempts: number; leased: boolean; last_error: string | null }>(
    sql`select status, attempts, lease_until is not null as leased, last_error from deliveries where notification_id = ${notificationId} order by position`,
  );
}

async function channelStatuses(auth: { Authorization: string }, subscriptionId: string) {
  const res = await env.http.get(`/subscription/${subscriptionId}`).set(auth).expect(200);
  return (res.body.subscription.channels as { status?: string }[]).map((c) => c.status);
}

/** A worker's side that takes every slot asked for and then never sends: the process "crashed" after the commit. */
function crashingReceiver(leaseMs: number): HandoffReceiver & { taken: ClaimedWithContext[] } {
  const taken: ClaimedWithContext[] = [];
  return { leaseMs, taken, reserve: (wanted) => wanted, unreserve: () => {}, take: (claims) => void taken.push(...claims) };
}

describe(`delivery hand-off (${engineName})`, () => {
  it('sends a committed firing without a claim: signed, webhook-id = notification id, SENT, channel SENT', async () => {
    const a = await env.newAccount();
    const hook = await receiver((_req, res) => json(res, 200, {}));
    const sub = await createSubscription(env, a, [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const handoff = new DeliveryHandoff();
    const { database, counted } = countingClaims(env.database);
    const worker = await startWorker(database, env.config, { pollMs: 60_000, handoff });
    try {
      await waitFor(() => counted.claims === 1, { message: 'the start claim' });
      const [id] = await fireHanded(handoff, a, sub);
      const req = await waitFor(() => hook.requests.find((r) => r.headers['webhook-id'] === id));
      const { secret } = (await env.http.get('/webhook-secret').set(a.auth).expect(200)).body;
      expect(new Webhook(secret).verify(req.body, req.headers as Record<string, string>)).toMatchObject({ subscriptionId: sub.subscriptionId });
      await waitFor(async () => (await deliveryRows(id!)).every((d) => d.status === 'SENT'));
      expect(await deliveryRows(id!)).toEqual([
        { status: 'SENT', attempts: 1, leased: false, last_error: null },
        { status: 'SENT', attempts: 1, leased: false, last_error: null },
      ]);
      expect(await channelStatuses(a.auth, sub.subscriptionId)).toEqual(['SENT', 'SENT']);
      // Neither the write's notice nor the send and record started a claim.
      await expectNothingFor(200, () => counted.claims > 1 && counted.claims, { message: 'a claim after the hand-off' });
      expect(hook.requests).toHaveLength(1);
    } finally {
      await worker.stop();
    }
  });

  it('sends nothing before the commit, and nothing of a write rolled back; its reserved slots come back', async () => {
    const a = await env.newAccount();
    const hook = await receiver((_req, res) => json(res, 200, {}));
    const sub = await createSubscription(env, a, [{ type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const handoff = new DeliveryHandoff();
    // One slot: a reservation never given back would leave this worker unable to send anything.
    const worker = await startWorker(env.database, env.config, { concurrency: 1, pollMs: 200, handoff });
    try {
      const [id] = await fireHanded(handoff, a, sub, 1, async () => {
        await expectNothingFor(150, () => hook.requests.length > 0, { message: 'a send before the commit' });
      });
      await waitFor(() => hook.requests.some((r) => r.headers['webhook-id'] === id));

      await expect(
        fireHanded(handoff, a, sub, 1, async () => {
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      // Both paths still send: a firing written without the hand-off (claimed) and one with it.
      const claimed = await fire(env, a, sub);
      await waitFor(() => hook.requests.some((r) => r.headers['webhook-id'] === claimed.id), { message: 'the claimed firing' });
      const [handed] = await fireHanded(handoff, a, sub);
      await waitFor(() => hook.requests.some((r) => r.headers['webhook-id'] === handed), { message: 'the handed firing' });
      expect(hook.requests).toHaveLength(3);
    } finally {
      await worker.stop();
    }
  });

  it('a crash after the commit leaves leased rows that another worker claims once the lease runs out, same webhook-id, once', async () => {
    const a = await env.newAccount();
    const hook = await receiver((_req, res) => json(res, 200, {}));
    const sub = await createSubscription(env, a, [{ type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const handoff = new DeliveryHandoff();
    const crashed = crashingReceiver(400);
    handoff.attach(crashed);
    const ids = await fireHanded(handoff, a, sub, 3);
    expect(crashed.taken.map((c) => c.notificationId).sort()).toEqual([...ids].sort());
    // Committed and leased: no claim takes them while the lease holds.
    for (const id of ids) expect(await deliveryRows(id)).toEqual([{ status: 'PENDING', attempts: 0, leased: true, last_error: null }]);
    const other = await startWorker(env.database, env.config, { pollMs: 100 });
    try {
      await waitFor(() => hook.requests.length >= 3, { message: 'the three redeliveries' });
      for (const id of ids) await waitFor(async () => (await deliveryRows(id))[0]?.status === 'SENT');
      await expectNothingFor(300, () => hook.requests.length > 3 && hook.requests.length, { message: 'a duplicate send' });
      expect(hook.requests.map((r) => r.headers['webhook-id']).sort()).toEqual([...ids].sort());
    } finally {
      await other.stop();
    }
  });

  it('a write with more deliveries than free slots leases what fits; the rest are claimed; each is sent once', async () => {
    const a = await env.newAccount();
    const hook = await receiver((_req, res) => void setTimeout(() => json(res, 200, {}), 30));
    const sub = await createSubscription(env, a, [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const handoff = new DeliveryHandoff();
    const worker = await startWorker(env.database, env.config, { concurrency: 3, pollMs: 60_000, handoff });
    try {
      const first = await fireHanded(handoff, a, sub, 12);
      const second = await fireHanded(handoff, a, sub, 12);
      const ids = [...first, ...second];
      await waitFor(() => hook.requests.length >= 24, { message: 'the 24 webhooks' });
      for (const id of ids) await waitFor(async () => (await deliveryRows(id)).every((d) => d.status === 'SENT'), { message: `${id} sent` });
      await expectNothingFor(300, () => hook.requests.length > 24 && hook.requests.length, { message: 'a duplicate send' });
      expect(hook.requests.map((r) => r.headers['webhook-id']).sort()).toEqual([...ids].sort());
    } finally {
      await worker.stop();
    }
  });

  it('a handed-off delivery of a disabled channel is recorded FAILED unsent, as a claimed one is', async () => {
    const a = await env.newAccount();
    const hook = await receiver((_req, res) => json(res, 200, {}));
    const sub = await createSubscription(env, a, [{ type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    await env.database.rows(
      sql`update subscription_channels set disabled_at = now(), disabled_reason = 'endpoint failing' where subscription_id = ${sub.subscriptionId} returning 1`,
    );
    const handoff = new DeliveryHandoff();
    const worker = await startWorker(env.database, env.config, { pollMs: 60_000, handoff });
    try {
      const [id] = await fireHanded(handoff, a, sub);
      await waitFor(async () => (await deliveryRows(id!))[0]?.status === 'FAILED');
      const [row] = await deliveryRows(id!);
      expect(row).toMatchObject({ attempts: 1, leased: false });
      expect(row!.last_error).toContain('Channel disabled: endpoint failing');
      expect(hook.requests).toHaveLength(0);
    } finally {
      await worker.stop();
    }
  });

  it('a stop while a write holds reserved slots waits for its commit, then its deliveries are back with the claims', async () => {
    const a = await env.newAccount();
    const hook = await receiver((_req, res) => json(res, 200, {}));
    const sub = await createSubscription(env, a, [{ type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const handoff = new DeliveryHandoff();
    const worker = await startWorker(env.database, env.config, { pollMs: 60_000, handoff });
    let stopping: Promise<void> | undefined;
    let stopped = false;
    let stoppedBeforeCommit: boolean | undefined;
    const [id] = await fireHanded(handoff, a, sub, 1, async () => {
      // The slots are reserved (the outbox write ran); the process stops before the COMMIT.
      stopping = worker.stop().then(() => void (stopped = true));
      await new Promise((resolve) => setTimeout(resolve, 150));
      stoppedBeforeCommit = stopped;
    });
    await stopping;
    expect(stoppedBeforeCommit).toBe(false);
    // Given back by the time the stop is over (not left leased until the lease runs out), unsent.
    expect(await deliveryRows(id!)).toEqual([{ status: 'PENDING', attempts: 0, leased: false, last_error: null }]);
    expect(hook.requests).toHaveLength(0);
    const next = await startWorker(env.database, env.config);
    try {
      await waitFor(async () => (await deliveryRows(id!))[0]?.status === 'SENT');
      expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual([id]);
    } finally {
      await next.stop();
    }
  });

  it('a stopped worker takes nothing: the write leaves its deliveries to claims', async () => {
    const a = await env.newAccount();
    const hook = await receiver((_req, res) => json(res, 200, {}));
    const sub = await createSubscription(env, a, [{ type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);
    const handoff = new DeliveryHandoff();
    const stopped = await startWorker(env.database, env.config, { handoff });
    await stopped.stop();
    expect(handoff.begin()).toBeUndefined();
    const [id] = await fireHanded(handoff, a, sub);
    expect(await deliveryRows(id!)).toEqual([{ status: 'PENDING', attempts: 0, leased: false, last_error: null }]);
    const next = await startWorker(env.database, env.config);
    try {
      await waitFor(async () => (await deliveryRows(id!))[0]?.status === 'SENT');
      expect(hook.requests).toHaveLength(1);
    } finally {
      await next.stop();
    }
  });
});

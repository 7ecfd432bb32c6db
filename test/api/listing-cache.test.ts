import { readFile } from 'node:fs/promises';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifyChange } from '../../src/db/client.js';
import { openDatabase } from '../../src/db/index.js';
import { SUBSCRIPTION_LIST_CHANGED } from '../../src/db/coordination.js';
import { catalogEvents, catalogMarkets, notifications, subscriptions } from '../../src/db/schema/index.js';
import { claimDueDeliveries, recordAttempts } from '../../src/delivery/outbox-store.js';
import { writeFiring } from '../../src/runner/fire.js';
import { listSubscriptions, listSubscriptionsJson } from '../../src/services/subscriptions/index.js';
import { listingFollowsNotices } from '../../src/services/subscriptions/listing-cache.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { waitFor } from '../support/wait.js';
import { json, startReceiver, type Receiver } from '../delivery/support/receiver.js';
import { OUTBOX_SETTINGS, startWorker } from '../outbox/support.js';

// GET /subscriptions is served from memory while the account's listing counter is unchanged
// (src/services/subscriptions/listing-cache.ts). Each test reads the listing (so it is cached),
// makes one kind of change through the code that makes it in the service, and reads again: the
// answer shows the change and equals the listing built afresh from the database.

let env: TestEnv;
let a: TestAccount;
let event: SeededEvent;
let ok: Receiver;
let failing: Receiver;
let firingAt = 1_700_000_000_000;

beforeAll(async () => {
  env = await createTestEnv(OUTBOX_SETTINGS);
  a = await env.newAccount();
  event = await seedEvent(env.database, { title: 'Rate cut in March', markets: 2 });
  ok = await startReceiver((_req, res) => json(res, 200, { ok: true }));
  failing = await startReceiver((_req, res) => json(res, 500, { error: 'down' }));
});
afterAll(async () => {
  await Promise.all([ok?.close(), failing?.close()]);
  await env?.close();
});

/** The cached answer, checked against the listing built from the database without the cache. */
async function listing(account = a) {
  const res = await env.http.get('/subscriptions').set(account.auth).expect(200);
  const fresh = await listSubscriptions({ ctx: account.ctx, input: {} });
  expect(res.body.subscriptions).toEqual(JSON.parse(JSON.stringify(fresh)));
  return res.body.subscriptions as { subscriptionId: string; [k: string]: unknown }[];
}

async function shown(subscriptionId: string, account = a) {
  const found = (await listing(account)).find((s) => s.subscriptionId === subscriptionId);
  return found as Record<string, any> | undefined;
}

async function watchlist(account = a, name = 'Rates') {
  const res = await env.http
    .post('/watchlists')
    .set(account.auth)
    .send({ name, events: { [event.id]: { autoFetch: true } } })
    .expect(201);
  return res.body.watchList.id as string;
}

async function subscribe(watchlistId: string, channels: object[] = [{ type: 'In App' }], account = a) {
  const res = await env.http
    .post('/subscriptions')
    .set(account.auth)
    .send({
      watchlistId,
      subscriptionScope: 'Market',
      eventId: event.id,
      marketId: event.markets[0]!.id,
      subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 60 } } },
      triggerType: 'Recurring',
      channels,
    });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.subscription.subscriptionId as string;
}

/** What the engine writes when the rule fires: counters, status, the notification and its deliveries. */
async function fire(subscriptionId: string, on = env.database) {
  firingAt += 1000;
  const firing = {
    ruleId: 0, subscriptionId, marketId: event.markets[0]!.id, token: event.markets[0]!.yesTokenId,
    ruleType: 'Crossing Up' as const, previousPrice: 0.5, price: 0.65, atMs: firingAt,
  };
  expect(await writeFiring(on.db, firing, { receivedAtMs: firing.atMs })).toBe('written');
}

describe(`the cached subscription listing (${engineName})`, () => {
  it('shows a created, updated, paused, restarted and deleted subscription at once', async () => {
    const wl = await watchlist();
    await listing();
    const id = await subscribe(wl);
    expect(await shown(id)).toBeDefined();

    await env.http.patch(`/subscription/${id}`).set(a.auth).send({ subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 70 } } } }).expect(200);
    expect((await shown(id))!.subscriptionTypeConfig.config.params).toEqual({ threshold_percent: 70 });

    await env.http.patch(`/subscription/${id}`).set(a.auth).send({ channels: [{ type: 'Webhook', settings: { webhookUrl: ok.url } }] }).expect(200);
    expect((await shown(id))!.channels).toEqual([{ type: 'Webhook', settings: { webhookUrl: ok.url } }]);

    await env.http.post(`/subscription/${id}/pause`).set(a.auth).expect(200);
    expect((await shown(id))!.status).toEqual({ enabled: false, reason: 'Paused by user' });
    await env.http.post(`/subscription/${id}/restart`).set(a.auth).expect(200);
    expect((await shown(id))!.status.enabled).toBe(true);

    await env.http.post(`/subscription/${id}/snooze`).set(a.auth).send({ for: '1h' }).expect(200);
    await listing();
    await env.http.delete(`/subscription/${id}/snooze`).set(a.auth).expect(200);
    await listing();

    await env.http.delete(`/subscription/${id}`).set(a.auth).expect(200);
    expect(await shown(id)).toBeUndefined();
  });

  it('shows a firing, then its delivery SENT, FAILED and redelivered, written by the engine and the worker', async () => {
    const wl = await watchlist();
    const sent = await subscribe(wl, [{ type: 'Webhook', settings: { webhookUrl: ok.url } }]);
    const failed = await subscribe(wl, [{ type: 'Webhook', settings: { webhookUrl: failing.url } }]);
    expect((await shown(sent))!.triggerCount).toBe(0);

    await fire(sent);
    await fire(failed);
    const fired = (await shown(sent))!;
    expect(fired.triggerCount).toBe(1);
    expect(fired.lastTriggeredAt).toBe(new Date(firingAt - 1000).toISOString());
    expect(fired.channels[0].status).toBe('PENDING');

    const worker = await startWorker(env.database, env.config);
    try {
      await waitFor(async () => (await shown(sent))!.channels[0].status === 'SENT', { message: 'the webhook delivery shows SENT' });
      await waitFor(async () => (await shown(failed))!.channels[0].status === 'FAILED', { message: 'the failing delivery shows FAILED' });
    } finally {
      await worker.stop();
    }

    const [latest] = await env.database.db.select({ id: notifications.id }).from(notifications).where(eq(notifications.subscriptionId, failed));
    await env.http.post(`/notifications/${latest!.id}/redeliver`).set(a.auth).expect(200);
    expect((await shown(failed))!.channels[0].status).toBe('PENDING');

    // Retention removing the latest notification takes its status away.
    await env.database.db.delete(notifications).where(eq(notifications.subscriptionId, failed));
    expect((await shown(failed))!.channels[0].status).toBeUndefined();
  });

  // drizzle/0026: an outcome raises the account's deliveries row, not the row the firing write raised;
  // the listing's version reads both. Read once right after each write: never a wait for it to show.
  it('shows each delivery outcome the worker records on the very next read, between firings read from the cache', async () => {
    const wl = await watchlist();
    const id = await subscribe(wl, [{ type: 'Webhook', settings: { webhookUrl: ok.url } }]);
    const record = async (status: 'SENT' | 'FAILED') => {
      const claimed = await claimDueDeliveries(env.database, 100, 30_000);
      expect(claimed.length).toBeGreaterThan(0);
      const result = { outcome: status === 'SENT' ? ('sent' as const) : ('failed' as const), statusCode: status === 'SENT' ? 200 : 500, durationMs: 1 };
      await recordAttempts(env.database, claimed.map((delivery) => ({ delivery, outcome: { status, result } })));
    };
    for (const status of ['FAILED', 'SENT'] as const) {
      await fire(id);
      // Read twice: the second answer is the kept one the outcome must not be hidden behind.
      expect((await shown(id))!.channels[0].status).toBe('PENDING');
      expect((await shown(id))!.channels[0].status).toBe('PENDING');
      await record(status);
      expect((await shown(id))!.channels[0].status).toBe(status);
    }
  });

  it('shows a watchlist renamed or deleted, and an event or market renamed by the catalog', async () => {
    const wl = await watchlist(a, 'Before');
    const id = await subscribe(wl);
    await env.http.get(`/subscriptions/${wl}`).set(a.auth).expect(200);
    expect((await shown(id))!.watchlistName).toBe('Before');

    await env.http.patch(`/watchlists/${wl}`).set(a.auth).send({ name: 'After' }).expect(200);
    expect((await shown(id))!.watchlistName).toBe('After');
    const one = await env.http.get(`/subscriptions/${wl}`).set(a.auth).expect(200);
    expect(one.body.subscriptions.map((s: { watchlistName: string }) => s.watchlistName)).toEqual(['After']);

    // A rename raises the one catalog-wide row, not the subscribed accounts' (the catalog sync's long
    // transaction would hold their locks against the engine's and worker's writes until it commits).
    const counters = async () =>
      Object.fromEntries(
        (await env.database.rows<{ account: string; version: string }>(
          sql`select account_id as account, version::text as version from subscription_list_versions where account_id in (${a.userId}, '*')`,
        )).map((r) => [r.account, Number(r.version)]),
      );
    const before = await counters();
    await env.database.db.update(catalogEvents).set({ title: 'Rate cut in April' }).where(eq(catalogEvents.id, event.id));
    await env.database.db.update(catalogMarkets).set({ question: 'Cut by 50 bp?' }).where(eq(catalogMarkets.id, event.markets[0]!.id));
    const after = await counters();
    expect(after[a.userId]).toBe(before[a.userId]);
    expect(after['*']).toBe((before['*'] ?? 0) + 2);
    const renamed = (await shown(id))!;
    expect([renamed.eventTitle, renamed.marketQuestion]).toEqual(['Rate cut in April', 'Cut by 50 bp?']);
    const single = await env.http.get(`/subscription/${id}`).set(a.auth).expect(200);
    expect(single.body.subscription.eventTitle).toBe('Rate cut in April');

    await env.http.post('/watchlists/delete').set(a.auth).send({ watchListId: wl }).expect(200);
    expect(await shown(id)).toBeUndefined();
    await env.http.get(`/subscriptions/${wl}`).set(a.auth).expect(404);
    await env.http.get(`/subscription/${id}`).set(a.auth).expect(404);
  });

  it('answers If-None-Match with 304 while unchanged, and never gives one account\'s answer to another', async () => {
    const wl = await watchlist();
    const id = await subscribe(wl);
    const first = await env.http.get('/subscriptions').set(a.auth).expect(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"/);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    const again = await env.http.get('/subscriptions').set(a.auth).set('If-None-Match', etag).expect(304);
    expect(again.text).toBe('');
    await env.http.post(`/subscription/${id}/pause`).set(a.auth).expect(200);
    const changed = await env.http.get('/subscriptions').set(a.auth).set('If-None-Match', etag).expect(200);
    expect(changed.headers.etag).not.toBe(etag);

    const b = await env.newAccount();
    await env.http.get(`/subscription/${id}`).set(a.auth).expect(200);
    await env.http.get(`/subscription/${id}`).set(b.auth).expect(404);
    await env.http.get(`/subscriptions/${wl}`).set(b.auth).expect(404);
    expect(await listing(b)).toEqual([]);
  });

  // drizzle/0022: the channels' trigger raises nothing when this transaction wrote the subscription's
  // row (its own trigger raised the counter); channels changed on their own still raise it.
  it('raises the counter once for a create with channels, and shows a channel changed on its own', async () => {
    const version = async () =>
      (await env.database.rows<{ v: string }>(sql`select version::text as v from subscription_list_versions where account_id = ${a.userId}`))[0]!.v;
    const wl = await watchlist();
    await listing();
    const before = BigInt(await version());
    const id = await subscribe(wl, [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: ok.url } }]);
    expect(BigInt(await version())).toBe(before + 1n);
    expect((await shown(id))!.channels).toHaveLength(2);

    // Not through the service: no write of the subscription's row in this statement.
    await env.database.db.execute(sql`update subscription_channels set settings = ${JSON.stringify({ webhookUrl: failing.url })}::jsonb
      where subscription_id = ${id} and position = 1`);
    expect((await shown(id))!.channels[1]).toEqual({ type: 'Webhook', settings: { webhookUrl: failing.url } });
    await env.database.db.execute(sql`delete from subscription_channels where subscription_id = ${id} and position = 1`);
    expect((await shown(id))!.channels).toEqual([{ type: 'In App' }]);
    await env.database.db.execute(sql`insert into subscription_channels (subscription_id, position, type) values (${id}, 1, 'In App')`);
    expect((await shown(id))!.channels).toEqual([{ type: 'In App' }, { type: 'In App' }]);

    // The subscription's row written in an earlier transaction, its channels replaced in this one.
    await env.http.patch(`/subscription/${id}`).set(a.auth).send({ channels: [{ type: 'Webhook', settings: { webhookUrl: ok.url } }] }).expect(200);
    expect((await shown(id))!.channels).toEqual([{ type: 'Webhook', settings: { webhookUrl: ok.url } }]);
  });

  it('has a counter trigger for insert, update and delete on every table the listing query reads', async () => {
    const source = await readFile(new URL('../../src/services/subscriptions/view.ts', import.meta.url), 'utf8');
    const read = new Set([...source.matchAll(/\b(?:from|join)\s+([a-z_]+)\s+[a-z]\b/g)].map((m) => m[1]!));
    expect([...read].sort()).toEqual(['catalog_events', 'catalog_markets', 'deliveries', 'notifications', 'subscription_channels', 'subscriptions', 'watchlists']);
    const triggers = await env.database.rows<{ table: string; op: string }>(sql`
      select event_object_table as "table", event_manipulation as op from information_schema.triggers
      where trigger_name like '%\_list\_%' and action_statement like '%list_changed()%'`);
    for (const table of read) {
      expect(triggers.filter((t) => t.table === table).map((t) => t.op).sort(), table).toEqual(['DELETE', 'INSERT', 'UPDATE']);
    }
  });

  it.skipIf(engineName !== 'postgres')('shows a firing written by an engine in another process', async () => {
    const wl = await watchlist();
    const id = await subscribe(wl);
    expect((await shown(id))!.triggerCount).toBe(0);
    const elsewhere = await openDatabase({ databaseUrl: env.databaseUrl!, maxConnections: 1 });
    try {
      await fire(id, elsewhere);
    } finally {
      await elsewhere.close();
    }
    expect((await shown(id))!.triggerCount).toBe(1);
  });

  // On PGlite the cache trusts the notices the counter's trigger sends instead of reading the
  // counter (listing-cache.ts): that holds only if PGlite runs the listener before the committing
  // call resumes. Reads started just before each write keep the old listing in the cache; the
  // read right after the write (no await between) must not be answered from it.
  it('shows a write to the read right after it, with reads running beside it, 200 times over', async () => {
    const wl = await watchlist();
    const id = await subscribe(wl);
    if (engineName === 'pglite') await waitFor(() => listingFollowsNotices(env.database), { message: 'the listing notices are followed' });
    const triggerCount = async () => {
      const { body } = await listSubscriptionsJson(a.ctx, {});
      return (JSON.parse(body.toString()) as { subscriptions: { subscriptionId: string; triggerCount: number }[] }).subscriptions.find((s) => s.subscriptionId === id)!.triggerCount;
    };
    for (let i = 1; i <= 200; i++) {
      const seenBeside: number[] = [];
      const beside = () => triggerCount().then((n) => void seenBeside.push(n));
      const [after] = await Promise.all([
        (async () => {
          await env.database.db.update(subscriptions).set({ triggerCount: i }).where(eq(subscriptions.id, id));
          return triggerCount();
        })(),
        beside(),
        beside(),
        beside(),
      ]);
      expect(after, `iteration ${i}`).toBe(i);
      for (const n of seenBeside) expect([i - 1, i]).toContain(n);
      // A read started after the write has returned sees it as well (from the cache now).
      expect(await triggerCount()).toBe(i);
    }
  });

  it('names the notice channel in the counter function as the coordination registry does', async () => {
    const [fn] = await env.database.rows<{ src: string }>(sql`select prosrc as src from pg_proc where proname = 'bump_subscription_list_versions'`);
    expect(fn!.src).toContain(`pg_notify('${SUBSCRIPTION_LIST_CHANGED}'`);
    expect(fn!.src).toContain(`'${SUBSCRIPTION_LIST_CHANGED}' = ANY (ARRAY(SELECT pg_listening_channels()))`);
  });

  // On PostgreSQL writers are pool connections that listen on nothing: no notice is queued, and
  // commits do not take the notify queue's lock. A marker sent after the write arrives after
  // anything the write would have sent (notices come in commit order).
  it.skipIf(engineName !== 'postgres')('sends no listing notice from the service\'s writes on PostgreSQL', async () => {
    const wl = await watchlist();
    const id = await subscribe(wl);
    const heard: string[] = [];
    const unlisten = await env.database.listen(SUBSCRIPTION_LIST_CHANGED, (payload) => heard.push(payload));
    try {
      await fire(id);
      await env.http.post(`/subscription/${id}/pause`).set(a.auth).expect(200);
      await notifyChange(env.database.db, SUBSCRIPTION_LIST_CHANGED, 'marker');
      await waitFor(() => heard.includes('marker'), { message: 'the marker notice arrives' });
      expect(heard).toEqual(['marker']);
    } finally {
      await unlisten();
    }
  });
});

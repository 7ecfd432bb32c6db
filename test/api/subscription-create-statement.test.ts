import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { SUBSCRIPTION_CHANGED } from '../../src/db/coordination.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { waitFor } from '../support/wait.js';

// A create writes the subscription, its channels and the change notice the engine follows in one
// statement: all of them reach the database and the feed, or none.
let env: TestEnv;
let a: TestAccount;
let event: SeededEvent;
let watchlistId: string;
const notices: string[] = [];
let unlisten: () => Promise<void>;

beforeAll(async () => {
  env = await createTestEnv({ MAX_SUBSCRIPTIONS: '1' });
  a = await env.newAccount();
  event = await seedEvent(env.database, { title: 'Snorvik harbour reopens', markets: 2 });
  const res = await env.http.post('/watchlists').set(a.auth).send({ name: 'Ports', events: { [event.id]: { autoFetch: true } } }).expect(201);
  watchlistId = res.body.watchList.id;
  unlisten = await env.database.listen(SUBSCRIPTION_CHANGED, (id) => notices.push(id));
});
afterAll(async () => {
  await unlisten?.();
  await env?.close();
});

const body = (marketId: string) => ({
  watchlistId,
  subscriptionScope: 'Market',
  eventId: event.id,
  marketId,
  subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 60 } } },
  triggerType: 'Recurring',
  channels: [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: 'http://127.0.0.1:9/hook' } }],
});

describe(`creating a subscription in one statement (${engineName})`, () => {
  it('stores the subscription with its channels in order and announces it to the engine', async () => {
    const res = await env.http.post('/subscriptions').set(a.auth).send(body(event.markets[1]!.id)).expect(201);
    const id = res.body.subscription.subscriptionId as string;
    expect(res.body.subscription.marketId).toBe(event.markets[1]!.id);
    expect(res.body.subscription.channels).toEqual([{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: 'http://127.0.0.1:9/hook' } }]);
    await waitFor(() => (notices.includes(id) ? true : undefined));
    const listed = await env.http.get('/subscriptions').set(a.auth).expect(200);
    expect(listed.body.subscriptions.map((s: { subscriptionId: string }) => s.subscriptionId)).toEqual([id]);
  });

  it('refused at the limit, stores nothing and announces nothing', async () => {
    const before = notices.length;
    const over = await env.http.post('/subscriptions').set(a.auth).send(body(event.markets[0]!.id)).expect(403);
    expect(over.body.error).toMatch(/MAX_SUBSCRIPTIONS/);
    const listed = await env.http.get('/subscriptions').set(a.auth).expect(200);
    expect(listed.body.subscriptions).toHaveLength(1);
    expect(notices.length).toBe(before);
  });

  it('refuses in the order it always did: the watchlist, then the limit, then the scope', async () => {
    const other = await env.newAccount();
    const { marketId: _m, ...noMarket } = body(event.markets[0]!.id);
    const theirs = await env.http.post('/subscriptions').set(other.auth).send(noMarket).expect(404);
    expect(theirs.body.error).toMatch(/Watchlist not found/);
    const atLimit = await env.http.post('/subscriptions').set(a.auth).send(noMarket).expect(403);
    expect(atLimit.body.error).toMatch(/MAX_SUBSCRIPTIONS/);
    const own = await env.http.post('/watchlists').set(other.auth).send({ name: 'Docks', events: { [event.id]: {} } }).expect(201);
    const scope = await env.http.post('/subscriptions').set(other.auth).send({ ...noMarket, watchlistId: own.body.watchList.id }).expect(400);
    expect(scope.body.error).toMatch(/marketId is required for the Market scope/);
  });
});

describe(`creates sent at once (${engineName})`, () => {
  it('never take an account past MAX_SUBSCRIPTIONS, and each answer matches what was stored', async () => {
    const env3 = await createTestEnv({ MAX_SUBSCRIPTIONS: '3' });
    try {
      const b = await env3.newAccount();
      const e = await seedEvent(env3.database, { title: 'Quay cranes', markets: 3 });
      const wl = await env3.http.post('/watchlists').set(b.auth).send({ name: 'Quays', events: { [e.id]: {} } }).expect(201);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          env3.http
            .post('/subscriptions')
            .set(b.auth)
            .send({
              watchlistId: wl.body.watchList.id,
              subscriptionScope: 'Market',
              eventId: e.id,
              marketId: e.markets[i % 3]!.id,
              subscriptionTypeConfig: { type: 'Crossing', config: { params: { threshold_percent: 10 + i } } },
              triggerType: 'Recurring',
              channels: [{ type: 'In App' }],
            }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 403, 403, 403, 403, 403]);
      const created = results.filter((r) => r.status === 201).map((r) => r.body.subscription);
      const listed = await env3.http.get('/subscriptions').set(b.auth).expect(200);
      expect(listed.body.subscriptions).toHaveLength(3);
      for (const sub of created) {
        const one = await env3.http.get(`/subscription/${sub.subscriptionId}`).set(b.auth).expect(200);
        expect(one.body.subscription).toEqual(sub);
        expect(sub).toMatchObject({ watchlistName: 'Quays', eventTitle: 'Quay cranes', channels: [{ type: 'In App' }], triggerCount: 0 });
      }
    } finally {
      await env3.close();
    }
  });

  it('never take an account past MAX_SUBSCRIPTIONS when they go to different watchlists', async () => {
    // Bug found in review: on PostgreSQL the lock was the watchlist's, so creates into two
    // watchlists of one account both counted below the limit and both inserted.
    const env4 = await createTestEnv({ MAX_SUBSCRIPTIONS: '2' });
    try {
      const c = await env4.newAccount();
      const e = await seedEvent(env4.database, { title: 'Ferry timetable', markets: 2 });
      const lists = await Promise.all(
        Array.from({ length: 6 }, (_, i) => env4.http.post('/watchlists').set(c.auth).send({ name: `Ferries ${i}`, events: { [e.id]: {} } }).expect(201)),
      );
      const results = await Promise.all(
        lists.map((wl, i) =>
          env4.http
            .post('/subscriptions')
            .set(c.auth)
            .send({
              watchlistId: wl.body.watchList.id,
              subscriptionScope: 'Market',
              eventId: e.id,
              marketId: e.markets[i % 2]!.id,
              subscriptionTypeConfig: { type: 'Crossing', config: { params: { threshold_percent: 20 + i } } },
              triggerType: 'Recurring',
              channels: [{ type: 'In App' }],
            }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 201, 403, 403, 403, 403]);
      const listed = await env4.http.get('/subscriptions').set(c.auth).expect(200);
      expect(listed.body.subscriptions).toHaveLength(2);
    } finally {
      await env4.close();
    }
  });
});

// drizzle/0023: the limit is checked against the count the subscriptions' trigger keeps beside the
// account's listing counter, not against a count of the account's rows.
describe(`the count MAX_SUBSCRIPTIONS is checked against (${engineName})`, () => {
  it('follows creates, deletes, a deleted watchlist and a subscription moved by hand to another account', async () => {
    const env2 = await createTestEnv({ MAX_SUBSCRIPTIONS: '2' });
    try {
      const [d, f] = [await env2.newAccount(), await env2.newAccount()];
      const e = await seedEvent(env2.database, { title: 'Lighthouse relit', markets: 2 });
      const watchlistOf = async (who: TestAccount, name: string) =>
        (await env2.http.post('/watchlists').set(who.auth).send({ name, events: { [e.id]: {} } }).expect(201)).body.watchList.id as string;
      const create = (who: TestAccount, wl: string) =>
        env2.http.post('/subscriptions').set(who.auth).send({
          watchlistId: wl,
          subscriptionScope: 'Market',
          eventId: e.id,
          marketId: e.markets[0]!.id,
          subscriptionTypeConfig: { type: 'Crossing', config: { params: { threshold_percent: 30 } } },
          triggerType: 'Recurring',
          channels: [{ type: 'In App' }],
        });
      const counts = async () => {
        const rows = await env2.database.rows<{ account: string; kept: number; held: number }>(sql`
          select a.id as account, coalesce(v.subscriptions, 0)::int as kept, (select count(*) from subscriptions s where s.account_id = a.id)::int as held
          from accounts a left join subscription_list_versions v on v.account_id = a.id where a.id in (${d.userId}, ${f.userId}) order by a.id`);
        for (const row of rows) expect(row.kept, row.account).toBe(row.held);
        return Object.fromEntries(rows.map((r) => [r.account, r.held]));
      };
      const [dl1, dl2, fl] = [await watchlistOf(d, 'One'), await watchlistOf(d, 'Two'), await watchlistOf(f, 'Three')];

      const first = (await create(d, dl1).expect(201)).body.subscription.subscriptionId as string;
      await create(d, dl2).expect(201);
      expect((await create(d, dl1)).status).toBe(403);
      await env2.http.delete(`/subscription/${first}`).set(d.auth).expect(200);
      expect(await counts()).toEqual({ [d.userId]: 1, [f.userId]: 0 });
      const moved = (await create(d, dl1).expect(201)).body.subscription.subscriptionId as string;
      expect((await create(d, dl2)).status).toBe(403);

      await env2.database.db.execute(sql`update subscriptions set account_id = ${f.userId} where id = ${moved}`);
      expect(await counts()).toEqual({ [d.userId]: 1, [f.userId]: 1 });
      await create(d, dl1).expect(201);
      await create(f, fl).expect(201);
      expect((await create(f, fl)).status).toBe(403);

      // A deleted watchlist takes its subscriptions with it: they no longer count.
      await env2.http.post('/watchlists/delete').set(d.auth).send({ watchListId: dl2 }).expect(200);
      expect(await counts()).toEqual({ [d.userId]: 1, [f.userId]: 2 });
      await create(d, dl1).expect(201);
      expect((await create(d, dl1)).status).toBe(403);

      // The migration's own count of the subscriptions already there, run again on lost counts.
      const migration = await readFile(new URL('../../drizzle/0023_subscription_counts.sql', import.meta.url), 'utf8');
      const backfill = migration.split('--> statement-breakpoint').find((part) => part.includes('SELECT account_id, 1, count(*) FROM subscriptions'))!;
      await env2.database.db.execute(sql`update subscription_list_versions set subscriptions = 0`);
      await env2.database.db.execute(sql.raw(backfill));
      expect(await counts()).toEqual({ [d.userId]: 2, [f.userId]: 2 });
    } finally {
      await env2.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WatchlistList, WatchlistOne } from '../../src/http/response-schemas.js';
import { seedEvent } from '../support/catalog.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';

let env: TestEnv;
let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.newAccount();
  b = await env.newAccount();
});
afterAll(() => env?.close());

const keyphraseBody = { name: 'Elections', query: { keyphrases: [{ text: 'election', include: true }], searchMatchOperator: 'OR' } };
const tagBody = { name: 'Crypto', query: { tags: [{ tagSlug: 'crypto', include: true }], searchMatchOperator: 'OR' } };

async function create(account: TestAccount, body: object) {
  const res = await env.http.post('/watchlists').set(account.auth).send(body).expect(201);
  return WatchlistOne.parse(res.body).watchList;
}

describe(`watchlists (${engineName})`, () => {
  it('creates a keyphrase watchlist with exactly the spec fields', async () => {
    const w = await create(a, keyphraseBody);
    expect(w).toEqual({
      id: expect.any(String),
      name: 'Elections',
      query: { keyphrases: [{ text: 'election', include: true }], tags: [], searchMatchOperator: 'OR', createdAt: expect.any(String) },
      automaticallyAddMatchingEvents: false,
      events: {},
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('lists newest first under watchLists, and gets one by id', async () => {
    const account = await env.newAccount();
    const first = await create(account, { ...keyphraseBody, name: 'first' });
    const second = await create(account, { ...tagBody, name: 'second' });
    const list = WatchlistList.parse((await env.http.get('/watchlists').set(account.auth).expect(200)).body);
    expect(list.watchLists.map((w) => w.name)).toEqual(['second', 'first']);
    const one = WatchlistList.parse((await env.http.get(`/watchlists/${first.id}`).set(account.auth).expect(200)).body);
    expect(one.watchLists).toEqual([first]);
    expect(second.query.tags).toEqual([{ tagSlug: 'crypto', include: true }]);
  });

  it('takes an events map whose events and markets exist in the catalog', async () => {
    const event = await seedEvent(env.database, { markets: 3 });
    const w = await create(a, {
      ...tagBody,
      events: { [event.id]: { autoFetch: false, markets: [event.markets[1]!.id] } },
    });
    expect(w.events).toEqual({ [event.id]: { autoFetch: false, markets: [event.markets[1]!.id] } });

    const unknown = await env.http.post('/watchlists').set(a.auth).send({ ...tagBody, events: { '424242': { autoFetch: true } } }).expect(400);
    expect(unknown.body.error).toMatch(/no such event/);
    const other = await seedEvent(env.database);
    const stranger = await env.http
      .post('/watchlists')
      .set(a.auth)
      .send({ ...tagBody, events: { [event.id]: { autoFetch: true, markets: [other.markets[0]!.id] } } })
      .expect(400);
    expect(stranger.body.error).toMatch(/is not a market of event/);
  });

  it('adds and removes events: every market by default', async () => {
    const event = await seedEvent(env.database, { markets: 2 });
    const w = await create(a, tagBody);
    const put = await env.http.put(`/watchlists/${w.id}/events/${event.id}`).set(a.auth).send({}).expect(200);
    expect(put.body.watchList.events).toEqual({ [event.id]: { autoFetch: true, markets: event.markets.map((m) => m.id) } });
    const del = await env.http.delete(`/watchlists/${w.id}/events/${event.id}`).set(a.auth).expect(200);
    expect(del.body.watchList.events).toEqual({});
    await env.http.delete(`/watchlists/${w.id}/events/${event.id}`).set(a.auth).expect(404);
  });

  it('answers 404 to adding an event the catalog lacks (API.md: what does not exist is a 404), and changes nothing', async () => {
    const w = await create(a, tagBody);
    const res = await env.http.put(`/watchlists/${w.id}/events/424242`).set(a.auth).send({ autoFetch: true }).expect(404);
    expect(res.body).toEqual({ error: 'Event 424242 is not in the catalog' });
    const after = await env.http.get(`/watchlists/${w.id}`).set(a.auth).expect(200);
    expect(after.body.watchLists[0].events).toEqual({});
  });

  it('takes in the open events matching its query when automatic adding is set, at creation and later', async () => {
    const acct = await env.newAccount();
    const match = await seedEvent(env.database, { title: 'Quarkball league final winner', markets: 2 });
    const closed = await seedEvent(env.database, { title: 'Quarkball league semifinal', closed: true });
    await seedEvent(env.database, { title: 'Something else entirely' });
    const body = { name: 'Quarkball', query: { keyphrases: [{ text: 'quarkball league', include: true }] } };

    const auto = await create(acct, { ...body, automaticallyAddMatchingEvents: true });
    expect(auto.events).toEqual({ [match.id]: { autoFetch: true, markets: match.markets.map((m) => m.id) } });
    expect(auto.events[closed.id]).toBeUndefined();

    const manual = await create(acct, body);
    expect(manual.events).toEqual({});
    const switched = await env.http.patch(`/watchlists/${manual.id}`).set(acct.auth).send({ automaticallyAddMatchingEvents: true }).expect(200);
    expect(Object.keys(switched.body.watchList.events)).toEqual([match.id]);
  });

  it('renames and switches automatic adding', async () => {
    const w = await create(a, keyphraseBody);
    const res = await env.http.patch(`/watchlists/${w.id}`).set(a.auth).send({ name: 'Renamed', automaticallyAddMatchingEvents: true }).expect(200);
    expect(res.body.watchList).toMatchObject({ name: 'Renamed', automaticallyAddMatchingEvents: true });
    await env.http.patch(`/watchlists/${w.id}`).set(a.auth).send({}).expect(400);
  });

  it('updates tags with a V2 body and a V1 body', async () => {
    const w = await create(a, tagBody);
    await env.http
      .patch(`/watchlists/${w.id}/query/tags`)
      .set(a.auth)
      .send({ includeTags: ['politics', 'elections'], excludeTags: ['sports'], matchOperator: 'AND' })
      .expect(200, {});
    let got = (await env.http.get(`/watchlists/${w.id}`).set(a.auth)).body.watchLists[0];
    expect(got.query).toMatchObject({
      tags: [
        { tagSlug: 'politics', include: true },
        { tagSlug: 'elections', include: true },
        { tagSlug: 'sports', include: false },
      ],
      keyphrases: [],
      searchMatchOperator: 'AND',
    });
    await env.http
      .patch(`/watchlists/${w.id}/query/tags`)
      .set(a.auth)
      .send({ tags: [{ tagSlug: 'crypto', include: true }], searchMatchOperator: 'OR' })
      .expect(200, {});
    got = (await env.http.get(`/watchlists/${w.id}`).set(a.auth)).body.watchLists[0];
    expect(got.query.tags).toEqual([{ tagSlug: 'crypto', include: true }]);
  });

  it('answers 409 for a tags update on a keyphrase watchlist, and the reverse', async () => {
    const kw = await create(a, keyphraseBody);
    const res = await env.http.patch(`/watchlists/${kw.id}/query/tags`).set(a.auth).send({ includeTags: ['crypto'] }).expect(409);
    expect(res.body.error).toMatch(/uses keyphrases/);
    const tw = await create(a, tagBody);
    await env.http.patch(`/watchlists/${tw.id}/query/keyphrases`).set(a.auth).send({ keyphrases: [{ text: 'btc', include: true }] }).expect(409);
    await env.http
      .patch(`/watchlists/${kw.id}/query/keyphrases`)
      .set(a.auth)
      .send({ keyphrases: [{ text: 'senate', include: true }], matchOperator: 'AND' })
      .expect(200, {});
  });

  it('answers 400 when no valid tag is given', async () => {
    const w = await create(a, tagBody);
    for (const body of [{ includeTags: [] }, { includeTags: [''] }, { excludeTags: ['x'] }, { tags: [] }, { tags: [{ tagSlug: 'a b', include: true }] }]) {
      const res = await env.http.patch(`/watchlists/${w.id}/query/tags`).set(a.auth).send(body).expect(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    const unchanged = (await env.http.get(`/watchlists/${w.id}`).set(a.auth)).body.watchLists[0];
    expect(unchanged.query.tags).toEqual([{ tagSlug: 'crypto', include: true }]);
  });

  it('refuses a query with both tags and keyphrases', async () => {
    const res = await env.http
      .post('/watchlists')
      .set(a.auth)
      .send({ name: 'x', query: { tags: [{ tagSlug: 'a', include: true }], keyphrases: [{ text: 'b', include: true }] } })
      .expect(400);
    expect(res.body.error).toMatch(/either tags or keyphrases/);
  });

  it('deletes with the documented texts and cascades to subscriptions', async () => {
    const event = await seedEvent(env.database);
    const w = await create(a, { ...tagBody, events: { [event.id]: { autoFetch: true } } });
    const sub = await env.http
      .post('/subscriptions')
      .set(a.auth)
      .send({
        watchlistId: w.id,
        subscriptionScope: 'Watchlist',
        subscriptionTypeConfig: { type: 'Crossing', config: { params: { threshold_percent: 50 } } },
        triggerType: 'Recurring',
        channels: [{ type: 'In App' }],
      })
      .expect(201);
    expect((await env.http.post('/watchlists/delete').set(a.auth).send({})).body).toEqual({ error: 'Invalid request body' });
    await env.http.post('/watchlists/delete').set(a.auth).send({ watchlistId: w.id }).expect(400, { error: 'Invalid request body' });
    await env.http.post('/watchlists/delete').set(b.auth).send({ watchListId: w.id }).expect(404, { error: 'Watchlist not found or already deleted' });
    await env.http.post('/watchlists/delete').set(a.auth).send({ watchListId: w.id }).expect(200, {});
    await env.http.post('/watchlists/delete').set(a.auth).send({ watchListId: w.id }).expect(404, { error: 'Watchlist not found or already deleted' });
    await env.http.get(`/subscription/${sub.body.subscription.subscriptionId}`).set(a.auth).expect(404);
  });

  it("treats another account's watchlist as not found on every endpoint", async () => {
    const event = await seedEvent(env.database);
    const w = await create(a, tagBody);
    const calls = [
      env.http.get(`/watchlists/${w.id}`),
      env.http.patch(`/watchlists/${w.id}`).send({ name: 'mine now' }),
      env.http.patch(`/watchlists/${w.id}/query/tags`).send({ includeTags: ['x'] }),
      env.http.patch(`/watchlists/${w.id}/query/keyphrases`).send({ keyphrases: [{ text: 'x', include: true }] }),
      env.http.put(`/watchlists/${w.id}/events/${event.id}`).send({}),
      env.http.delete(`/watchlists/${w.id}/events/${event.id}`),
      env.http.get(`/subscriptions/${w.id}`),
    ];
    for (const call of calls) {
      const res = await call.set(b.auth);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    const mine = (await env.http.get(`/watchlists/${w.id}`).set(a.auth)).body.watchLists[0];
    expect(mine).toMatchObject({ name: 'Crypto', events: {} });
  });

  it('enforces the watchlist and query-term quotas with a message naming the limit', async () => {
    const small = await createTestEnv({ MAX_WATCHLISTS: '1', MAX_QUERY_TERMS: '2' });
    try {
      const acct = await small.newAccount();
      const many = { name: 'x', query: { keyphrases: ['a', 'b', 'c'].map((text) => ({ text, include: true })) } };
      expect((await small.http.post('/watchlists').set(acct.auth).send(many).expect(403)).body.error).toMatch(/MAX_QUERY_TERMS/);
      await small.http.post('/watchlists').set(acct.auth).send(keyphraseBody).expect(201);
      expect((await small.http.post('/watchlists').set(acct.auth).send(keyphraseBody).expect(403)).body.error).toMatch(/MAX_WATCHLISTS/);
    } finally {
      await small.close();
    }
  });
});

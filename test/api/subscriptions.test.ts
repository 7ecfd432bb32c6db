import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Subscription, SubscriptionList } from '../../src/http/response-schemas.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';

let env: TestEnv;
let a: TestAccount;
let b: TestAccount;
let event: SeededEvent;
let watchlistId: string;

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.newAccount();
  b = await env.newAccount();
  event = await seedEvent(env.database, { title: 'Fed decision in December', markets: 2 });
  const res = await env.http
    .post('/watchlists')
    .set(a.auth)
    .send({ name: 'Macro', query: { keyphrases: [{ text: 'fed', include: true }] }, events: { [event.id]: { autoFetch: true } } })
    .expect(201);
  watchlistId = res.body.watchList.id;
});
afterAll(() => env?.close());

const crossing = (pct: number, type = 'Crossing Up') => ({ type, config: { params: { threshold_percent: pct } } });

function marketBody(overrides: object = {}) {
  return {
    watchlistId,
    subscriptionScope: 'Market',
    eventId: event.id,
    marketId: event.markets[0]!.id,
    subscriptionTypeConfig: crossing(60),
    triggerType: 'Recurring',
    channels: [{ type: 'In App' }],
    ...overrides,
  };
}

async function create(body: object, account = a) {
  const res = await env.http.post('/subscriptions').set(account.auth).send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return Subscription.parse(res.body.subscription);
}

describe(`subscriptions (${engineName})`, () => {
  it('creates a Market subscription with exactly the spec properties', async () => {
    const s = await create(marketBody());
    expect(s).toEqual({
      subscriptionId: expect.any(String),
      watchlistId,
      watchlistName: 'Macro',
      eventId: event.id,
      eventTitle: 'Fed decision in December',
      marketId: event.markets[0]!.id,
      marketQuestion: event.markets[0]!.question,
      subscriptionScope: 'Market',
      subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 60 } } },
      rule: { type: 'Crossing Up', params: { thresholdPercent: 60, triggerType: 'Recurring', triggerInterval: '30m' } },
      createdAt: expect.any(String),
      expiresAt: null,
      updatedAt: null,
      status: { enabled: true, reason: 'Created' },
      triggerType: 'Recurring',
      triggerInterval: '30m',
      triggerCount: 0,
      lastTriggeredAt: null,
      channels: [{ type: 'In App' }],
    });
  });

  it('creates Event and Watchlist scopes and every price type', async () => {
    for (const type of ['Crossing', 'Crossing Up', 'Crossing Down', 'Crossing Step', 'Greater Than', 'Less Than']) {
      const s = await create(marketBody({ subscriptionScope: 'Event', marketId: undefined, subscriptionTypeConfig: crossing(20, type) }));
      expect(s).toMatchObject({ subscriptionScope: 'Event', eventId: event.id, subscriptionTypeConfig: { type } });
      expect(s.marketId).toBeUndefined();
    }
    const w = await create({ watchlistId, subscriptionScope: 'Watchlist', subscriptionTypeConfig: crossing(10, 'Less Than'), triggerType: 'One Time', channels: [{ type: 'In App' }] });
    expect(w).toMatchObject({ subscriptionScope: 'Watchlist', triggerType: 'One Time', rule: { params: { triggerType: 'One Time' } } });
    expect(w.eventId).toBeUndefined();
    expect(w.triggerInterval).toBeUndefined();
  });

  it('makes "New or closed events and markets" always Recurring with an empty params rule', async () => {
    const s = await create({
      watchlistId,
      subscriptionScope: 'Watchlist',
      subscriptionTypeConfig: { type: 'New or closed events and markets', config: { params: {} } },
      triggerType: 'One Time',
      channels: [{ type: 'In App' }],
    });
    expect(s.triggerType).toBe('Recurring');
    expect(s.rule).toEqual({ type: 'New or closed events and markets' });
    expect(s.subscriptionTypeConfig).toEqual({ type: 'New or closed events and markets', config: { params: {} } });
  });

  it('keeps channel settings that fit their type', async () => {
    const s = await create(
      marketBody({
        channels: [
          { type: 'In App' },
          { type: 'Webhook', settings: { webhookUrl: 'http://127.0.0.1:9/hook' } },
          { type: 'Discord', settings: { discordWebhookUrl: 'http://127.0.0.1:9/api/webhooks/1/x' } },
          { type: 'Telegram', settings: { telegramChatId: -1001234 } },
        ],
      }),
    );
    expect(s.channels).toEqual([
      { type: 'In App' },
      { type: 'Webhook', settings: { webhookUrl: 'http://127.0.0.1:9/hook' } },
      { type: 'Discord', settings: { discordWebhookUrl: 'http://127.0.0.1:9/api/webhooks/1/x' } },
      { type: 'Telegram', settings: { telegramChatId: -1001234 } },
    ]);
  });

  it.each([
    ['threshold 0', { subscriptionTypeConfig: crossing(0) }, /greater than 0/],
    ['threshold 100', { subscriptionTypeConfig: crossing(100) }, /less than 100/],
    ['step over 50', { subscriptionTypeConfig: crossing(60, 'Crossing Step') }, /at most 50/],
    ['step below 0.01 (it could never fire)', { subscriptionTypeConfig: crossing(0.0099, 'Crossing Step') }, /threshold_percent must be at least 0\.01/],
    ['unknown type', { subscriptionTypeConfig: crossing(10, 'Sideways') }, /must be one of/],
    ['bad interval', { triggerInterval: '10m' }, /triggerInterval must be one of/],
    ['bad trigger type', { triggerType: 'Sometimes' }, /triggerType must be one of/],
    ['no channels', { channels: [] }, /at least one channel/],
    ['webhook without URL', { channels: [{ type: 'Webhook', settings: {} }] }, /webhookUrl/],
    ['webhook with a Telegram setting', { channels: [{ type: 'Webhook', settings: { telegramChatId: 1 } }] }, /./],
    ['In App with settings', { channels: [{ type: 'In App', settings: { webhookUrl: 'http://127.0.0.1/x' } }] }, /./],
    ['ftp webhook', { channels: [{ type: 'Webhook', settings: { webhookUrl: 'ftp://127.0.0.1/x' } }] }, /http or https/],
    ['fractional chat id', { channels: [{ type: 'Telegram', settings: { telegramChatId: 1.5 } }] }, /integer/],
    ['expiry in the past', { expiresAt: '2020-01-01T00:00:00Z' }, /future/],
    ['market without event', { eventId: undefined }, /eventId is required/],
    ['market of another event', { marketId: 'nope' }, /is not a market of event/],
    ['event not in watchlist', { eventId: 'nope', marketId: undefined, subscriptionScope: 'Event' }, /not in this watchlist/],
    ['watchlist scope with an event', { subscriptionScope: 'Watchlist', marketId: undefined }, /takes no eventId/],
    ['unknown field', { colour: 'red' }, /colour/],
  ])('answers 400 for %s', async (_name, overrides, message) => {
    const before = (await env.http.get('/subscriptions').set(a.auth)).body.subscriptions.length;
    const res = await env.http.post('/subscriptions').set(a.auth).send(marketBody(overrides)).expect(400);
    expect(res.body).toEqual({ error: expect.stringMatching(message) });
    expect((await env.http.get('/subscriptions').set(a.auth)).body.subscriptions).toHaveLength(before);
  });

  it('takes the smallest Crossing Step the engine fires (0.01), and refuses a smaller one on update too', async () => {
    const id = (await create(marketBody({ subscriptionTypeConfig: crossing(0.01, 'Crossing Step') }))).subscriptionId;
    const res = await env.http
      .patch(`/subscription/${id}`)
      .set(a.auth)
      .send({ subscriptionTypeConfig: crossing(0.001, 'Crossing Step') })
      .expect(400);
    expect(res.body).toEqual({ error: expect.stringMatching(/threshold_percent: a Crossing Step threshold_percent must be at least 0\.01/) });
    const after = await env.http.get(`/subscription/${id}`).set(a.auth).expect(200);
    expect(after.body.subscription.subscriptionTypeConfig.config.params.threshold_percent).toBe(0.01);
  });

  it('refuses webhook URLs on private addresses unless ALLOW_PRIVATE_URLS is set', async () => {
    const strict = await createTestEnv({ ALLOW_PRIVATE_URLS: 'false' });
    try {
      const acct = await strict.newAccount();
      const e = await seedEvent(strict.database);
      const w = await strict.http.post('/watchlists').set(acct.auth).send({ name: 'x', events: { [e.id]: { autoFetch: true } } }).expect(201);
      for (const url of ['http://127.0.0.1/hook', 'http://10.1.2.3/hook', 'http://169.254.169.254/latest']) {
        const res = await strict.http
          .post('/subscriptions')
          .set(acct.auth)
          .send({ watchlistId: w.body.watchList.id, subscriptionScope: 'Watchlist', subscriptionTypeConfig: crossing(50), channels: [{ type: 'Webhook', settings: { webhookUrl: url } }] })
          .expect(400);
        expect(res.body.error).toMatch(/webhookUrl must be a public http\(s\) URL/);
      }
    } finally {
      await strict.close();
    }
  });

  it('lists all, or one watchlist, newest first', async () => {
    const acct = await env.newAccount();
    const e = await seedEvent(env.database);
    const w1 = (await env.http.post('/watchlists').set(acct.auth).send({ name: 'one', events: { [e.id]: { autoFetch: true } } })).body.watchList.id;
    const w2 = (await env.http.post('/watchlists').set(acct.auth).send({ name: 'two' })).body.watchList.id;
    const base = { subscriptionScope: 'Watchlist', subscriptionTypeConfig: crossing(50), channels: [{ type: 'In App' }] };
    const s1 = await create({ ...base, watchlistId: w1 }, acct);
    const s2 = await create({ ...base, watchlistId: w2 }, acct);
    const all = SubscriptionList.parse((await env.http.get('/subscriptions').set(acct.auth).expect(200)).body);
    expect(all.subscriptions.map((s) => s.subscriptionId)).toEqual([s2.subscriptionId, s1.subscriptionId]);
    const one = SubscriptionList.parse((await env.http.get(`/subscriptions/${w1}`).set(acct.auth).expect(200)).body);
    expect(one.subscriptions.map((s) => s.subscriptionId)).toEqual([s1.subscriptionId]);
    expect(Object.keys((await env.http.get(`/subscriptions/${w2}`).set(acct.auth)).body)).toEqual(['subscriptions']);
  });

  it('updates, pauses and restarts with the spec reasons', async () => {
    const s = await create(marketBody());
    const updated = await env.http
      .patch(`/subscription/${s.subscriptionId}`)
      .set(a.auth)
      .send({ subscriptionTypeConfig: crossing(70, 'Crossing Down'), triggerInterval: '5m', channels: [{ type: 'Telegram', settings: { telegramChatId: 42 } }] })
      .expect(200);
    expect(Subscription.parse(updated.body.subscription)).toMatchObject({
      status: { enabled: true, reason: 'Updated' },
      subscriptionTypeConfig: crossing(70, 'Crossing Down'),
      rule: { params: { thresholdPercent: 70, triggerInterval: '5m' } },
      triggerInterval: '5m',
      channels: [{ type: 'Telegram', settings: { telegramChatId: 42 } }],
      updatedAt: expect.any(String),
    });
    const paused = await env.http.post(`/subscription/${s.subscriptionId}/pause`).set(a.auth).expect(200);
    expect(paused.body.subscription.status).toEqual({ enabled: false, reason: 'Paused by user' });
    const restarted = await env.http.post(`/subscription/${s.subscriptionId}/restart`).set(a.auth).expect(200);
    expect(restarted.body.subscription.status).toEqual({ enabled: true, reason: 'Restarted by user' });
    const once = await env.http.patch(`/subscription/${s.subscriptionId}`).set(a.auth).send({ triggerType: 'One Time' }).expect(200);
    expect(once.body.subscription.triggerInterval).toBeUndefined();
    const again = await env.http.patch(`/subscription/${s.subscriptionId}`).set(a.auth).send({ triggerType: 'Recurring' }).expect(200);
    expect(again.body.subscription.triggerInterval).toBe('30m');
    await env.http.patch(`/subscription/${s.subscriptionId}`).set(a.auth).send({}).expect(400);
    const got = await env.http.get(`/subscription/${s.subscriptionId}`).set(a.auth).expect(200);
    expect(got.body.subscription.triggerType).toBe('Recurring');
  });

  it('deletes', async () => {
    const s = await create(marketBody());
    await env.http.delete(`/subscription/${s.subscriptionId}`).set(a.auth).expect(200, {});
    await env.http.get(`/subscription/${s.subscriptionId}`).set(a.auth).expect(404);
    await env.http.delete(`/subscription/${s.subscriptionId}`).set(a.auth).expect(404);
  });

  it("treats another account's subscription and watchlist as not found", async () => {
    const s = await create(marketBody());
    const calls = [
      env.http.get(`/subscription/${s.subscriptionId}`),
      env.http.patch(`/subscription/${s.subscriptionId}`).send({ triggerInterval: '5m' }),
      env.http.post(`/subscription/${s.subscriptionId}/pause`),
      env.http.post(`/subscription/${s.subscriptionId}/restart`),
      env.http.delete(`/subscription/${s.subscriptionId}`),
      env.http.get(`/subscriptions/${watchlistId}`),
      env.http.post('/subscriptions').send(marketBody()),
    ];
    for (const call of calls) {
      const res = await call.set(b.auth);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    const still = await env.http.get(`/subscription/${s.subscriptionId}`).set(a.auth).expect(200);
    expect(still.body.subscription.status.reason).toBe('Created');
  });

  it('enforces the subscription and channel quotas', async () => {
    const small = await createTestEnv({ MAX_SUBSCRIPTIONS: '1', MAX_CHANNELS_PER_SUBSCRIPTION: '1' });
    try {
      const acct = await small.newAccount();
      const w = (await small.http.post('/watchlists').set(acct.auth).send({ name: 'q' })).body.watchList.id;
      const body = { watchlistId: w, subscriptionScope: 'Watchlist', subscriptionTypeConfig: crossing(50), channels: [{ type: 'In App' }] };
      const two = { ...body, channels: [{ type: 'In App' }, { type: 'Telegram', settings: { telegramChatId: 5 } }] };
      expect((await small.http.post('/subscriptions').set(acct.auth).send(two).expect(403)).body.error).toMatch(/MAX_CHANNELS_PER_SUBSCRIPTION/);
      await small.http.post('/subscriptions').set(acct.auth).send(body).expect(201);
      expect((await small.http.post('/subscriptions').set(acct.auth).send(body).expect(403)).body.error).toMatch(/MAX_SUBSCRIPTIONS/);
    } finally {
      await small.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});

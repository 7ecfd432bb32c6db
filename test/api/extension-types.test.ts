import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Subscription } from '../../src/http/response-schemas.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';

// Our extension of the spec's rule types (docs/alerts.md "Richer triggers"): stored, shown and
// refused through the same REST contract as the spec's own types.

let env: TestEnv;
let a: TestAccount;
let event: SeededEvent;
let watchlistId: string;

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.newAccount();
  event = await seedEvent(env.database, { title: 'Fed decision in December', markets: 1 });
  const res = await env.http
    .post('/watchlists')
    .set(a.auth)
    .send({ name: 'Macro', query: { keyphrases: [{ text: 'fed', include: true }] }, events: { [event.id]: { autoFetch: true } } })
    .expect(201);
  watchlistId = res.body.watchList.id;
});
afterAll(() => env?.close());

const body = (subscriptionTypeConfig: object, overrides: object = {}) => ({
  watchlistId,
  subscriptionScope: 'Market',
  eventId: event.id,
  marketId: event.markets[0]!.id,
  subscriptionTypeConfig,
  triggerType: 'Recurring',
  triggerInterval: '5m',
  channels: [{ type: 'In App' }],
  ...overrides,
});

const CASES = [
  { type: 'Moves Up By', params: { threshold_percent: 10, window: '1h' }, rule: { thresholdPercent: 10, window: '1h' } },
  { type: 'Moves Down By', params: { threshold_percent: 5, window: '5m' }, rule: { thresholdPercent: 5, window: '5m' } },
  { type: 'Moves By', params: { threshold_percent: 2.5, window: '24h' }, rule: { thresholdPercent: 2.5, window: '24h' } },
  { type: 'Large Trade', params: { min_usd: 25000, side: 'BUY' }, rule: { minUsd: 25000, side: 'BUY' } },
  { type: 'Large Trade', params: { min_usd: 1000 }, rule: { minUsd: 1000 } },
  { type: 'Volume Spike', params: { multiple: 3 }, rule: { multiple: 3 } },
  { type: 'Resolution', params: {}, rule: {} },
  { type: 'Closing Soon', params: { hours_before: 24 }, rule: { hoursBefore: 24 } },
] as const;

describe(`extension rule types (${engineName})`, () => {
  it.each(CASES)('$type $params is stored and shown as given, in the spec shape', async ({ type, params, rule }) => {
    const res = await env.http.post('/subscriptions').set(a.auth).send(body({ type, config: { params } }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const s = Subscription.parse(res.body.subscription);
    expect(s.subscriptionTypeConfig).toEqual({ type, config: { params } });
    expect(s.rule).toEqual({ type, params: { ...rule, triggerType: 'Recurring', triggerInterval: '5m' } });
    const read = await env.http.get(`/subscription/${s.subscriptionId}`).set(a.auth).expect(200);
    expect(read.body.subscription.subscriptionTypeConfig).toEqual({ type, config: { params } });
  });

  it('a PATCH to another type replaces the parameters whole', async () => {
    const created = await env.http.post('/subscriptions').set(a.auth).send(body({ type: 'Large Trade', config: { params: { min_usd: 500 } } }));
    const id = created.body.subscription.subscriptionId;
    const patched = await env.http
      .patch(`/subscription/${id}`)
      .set(a.auth)
      .send({ subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 40 } } } })
      .expect(200);
    expect(patched.body.subscription.subscriptionTypeConfig).toEqual({ type: 'Crossing Up', config: { params: { threshold_percent: 40 } } });
  });

  it.each([
    [{ type: 'Moves Up By', config: { params: { threshold_percent: 10 } } }, /window/],
    [{ type: 'Moves Up By', config: { params: { threshold_percent: 10, window: '2h' } } }, /window must be one of: 5m, 15m, 1h, 4h, 24h/],
    [{ type: 'Moves By', config: { params: { threshold_percent: 0, window: '1h' } } }, /threshold_percent must be greater than 0/],
    [{ type: 'Large Trade', config: { params: { min_usd: 0 } } }, /min_usd must be greater than 0/],
    [{ type: 'Large Trade', config: { params: { min_usd: 10, side: 'HOLD' } } }, /side must be one of: BUY, SELL/],
    [{ type: 'Volume Spike', config: { params: { multiple: 1.2 } } }, /multiple must be at least 1.5/],
    [{ type: 'Closing Soon', config: { params: { hours_before: 12 } } }, /hours_before must be one of: 1, 6, 24, 72/],
    [{ type: 'Resolution', config: { params: { outcome: 'Yes' } } }, /outcome/],
    [{ type: 'Jumps', config: { params: {} } }, /subscriptionTypeConfig.type must be one of: .*Moves Up By.*Closing Soon/],
  ])('refuses %j with a 400 naming what to fix', async (typeConfig, message) => {
    const before = await env.http.get('/subscriptions').set(a.auth).expect(200);
    const res = await env.http.post('/subscriptions').set(a.auth).send(body(typeConfig));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    const after = await env.http.get('/subscriptions').set(a.auth).expect(200);
    expect(after.body.subscriptions.length).toBe(before.body.subscriptions.length);
  });

  it('a dry run refuses the extension types and says which types it covers', async () => {
    const res = await env.http
      .post('/subscriptions/dry-run')
      .set(a.auth)
      .send(body({ type: 'Large Trade', config: { params: { min_usd: 500 } } }));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/dry run covers the price rules only \(Crossing, .*Less Than\)/);
  });
});

import fc from 'fast-check';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as subs from '../../src/services/subscriptions/index.js';
import * as watchlists from '../../src/services/watchlists/index.js';
import { CreateTokenInput } from '../../src/services/tokens/schemas.js';
import { seedEvent } from '../support/catalog.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';

let env: TestEnv;
let a: TestAccount;
let watchlistId: string;
let eventId: string;
let subscriptionId: string;

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.newAccount();
  const event = await seedEvent(env.database, { markets: 2 });
  eventId = event.id;
  const w = await env.http
    .post('/watchlists')
    .set(a.auth)
    .send({ name: 'w', query: { tags: [{ tagSlug: 'crypto', include: true }] }, events: { [eventId]: { autoFetch: true } } })
    .expect(201);
  watchlistId = w.body.watchList.id;
  const s = await env.http.post('/subscriptions').set(a.auth).send(validSubscription()).expect(201);
  subscriptionId = s.body.subscription.subscriptionId;
});
afterAll(() => env?.close());

function validSubscription() {
  return {
    watchlistId,
    subscriptionScope: 'Market',
    eventId,
    marketId: `${eventId}0`,
    subscriptionTypeConfig: { type: 'Crossing', config: { params: { threshold_percent: 40 } } },
    triggerType: 'Recurring',
    triggerInterval: '5m',
    channels: [{ type: 'In App' }],
  };
}

async function snapshot() {
  const [w, s, t] = await Promise.all([
    env.http.get('/watchlists').set(a.auth),
    env.http.get('/subscriptions').set(a.auth),
    env.http.get('/tokens').set(a.auth),
  ]);
  return JSON.stringify([w.body, s.body, t.body.tokens.map((x: { id: string }) => x.id)]);
}

type Endpoint = { method: 'post' | 'patch' | 'put'; name: string; path: () => string; schema: z.ZodType; valid: () => Record<string, unknown> };

const endpoints: Endpoint[] = [
  { method: 'post', name: '/watchlists', path: () => '/watchlists', schema: watchlists.CreateWatchlistInput, valid: () => ({ name: 'n', query: { keyphrases: [{ text: 'x', include: true }] } }) },
  { method: 'patch', name: '/watchlists/{id}', path: () => `/watchlists/${watchlistId}`, schema: watchlists.UpdateWatchlistInput, valid: () => ({ name: 'n' }) },
  { method: 'patch', name: '/watchlists/{id}/query/tags', path: () => `/watchlists/${watchlistId}/query/tags`, schema: watchlists.UpdateTagsInput, valid: () => ({ includeTags: ['a'], excludeTags: [], matchOperator: 'OR' }) },
  { method: 'patch', name: '/watchlists/{id}/query/keyphrases', path: () => `/watchlists/${watchlistId}/query/keyphrases`, schema: watchlists.UpdateKeyphrasesInput, valid: () => ({ keyphrases: [{ text: 'x', include: true }] }) },
  { method: 'put', name: '/watchlists/{id}/events/{eventId}', path: () => `/watchlists/${watchlistId}/events/${eventId}`, schema: watchlists.EventSelection, valid: () => ({ autoFetch: false }) },
  { method: 'post', name: '/watchlists/delete', path: () => '/watchlists/delete', schema: watchlists.DeleteWatchlistInput, valid: () => ({ watchListId: 'nope' }) },
  { method: 'post', name: '/subscriptions', path: () => '/subscriptions', schema: subs.CreateSubscriptionInput, valid: validSubscription },
  { method: 'patch', name: '/subscription/{id}', path: () => `/subscription/${subscriptionId}`, schema: subs.UpdateSubscriptionInput, valid: () => ({ triggerInterval: '60m' }) },
  { method: 'post', name: '/tokens', path: () => '/tokens', schema: CreateTokenInput, valid: () => ({ name: 't' }) },
];

// Whole random values, and valid bodies with one field replaced by a random value.
function bodies(endpoint: Endpoint) {
  const whole = fc.anything({ maxDepth: 3, withNullPrototype: false });
  const valid = endpoint.valid();
  const mutated = fc
    .tuple(fc.constantFrom(...Object.keys(valid)), fc.anything({ maxDepth: 2 }))
    .map(([key, value]) => ({ ...valid, [key]: value }));
  // Filter on what is actually sent: JSON drops undefined values, which can turn a bad body valid.
  return fc
    .oneof(whole, mutated)
    .map((body) => (body === undefined ? null : JSON.parse(JSON.stringify(body) ?? 'null')))
    .filter((body) => !endpoint.schema.safeParse(body).success);
}

describe(`random bodies to every POST, PUT and PATCH (${engineName})`, () => {
  for (const endpoint of endpoints) {
    it(`${endpoint.method.toUpperCase()} ${endpoint.name} answers 4xx {error} and changes nothing`, async () => {
      const before = await snapshot();
      await fc.assert(
        fc.asyncProperty(bodies(endpoint), async (body) => {
          const res = await env.http[endpoint.method](endpoint.path()).set(a.auth).set('content-type', 'application/json').send(JSON.stringify(body));
          expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          expect(res.body).toEqual({ error: expect.any(String) });
        }),
        { numRuns: 60 },
      );
      expect(await snapshot()).toBe(before);
    });
  }

  it('a JSON null body is a bad body, not "no body" (regression)', async () => {
    const res = await env.http.put(`/watchlists/${watchlistId}/events/${eventId}`).set(a.auth).set('content-type', 'application/json').send('null').expect(400);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});

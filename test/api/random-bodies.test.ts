import fc from 'fast-check';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountRoutes } from '../../src/http/routes/account.js';
import { notificationRoutes } from '../../src/http/routes/notifications.js';
import { subscriptionRoutes } from '../../src/http/routes/subscriptions.js';
import { watchlistRoutes } from '../../src/http/routes/watchlists.js';
import { expressPath, pathParams } from '../../src/http/route.js';
import * as accounts from '../../src/services/accounts/index.js';
import * as subs from '../../src/services/subscriptions/index.js';
import * as watchlists from '../../src/services/watchlists/index.js';
import { CreateTokenInput } from '../../src/services/tokens/schemas.js';
import { seedEvent } from '../support/catalog.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { badPathSegment, nastyUnit, withBadCharacter } from '../support/nasty-strings.js';

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

type Endpoint = {
  method: 'post' | 'patch' | 'put';
  name: string;
  path: () => string;
  schema: z.ZodType;
  valid: () => Record<string, unknown>;
  /** A valid body with a string in every field that can hold one (to slip a bad character into). */
  full?: () => Record<string, unknown>;
  /** The spec fixes this endpoint's answer to any bad body (service-interface.md). */
  fixedError?: string;
};

const webhook = { type: 'Webhook', settings: { webhookUrl: 'https://hooks.example.com/a?b=c' } };
const discord = { type: 'Discord', settings: { discordWebhookUrl: 'https://discord.com/api/webhooks/1/abc' } };
const future = () => new Date(Date.now() + 86_400_000).toISOString();

const endpoints: Endpoint[] = [
  { method: 'post', name: '/watchlists', path: () => '/watchlists', schema: watchlists.CreateWatchlistInput, valid: () => ({ name: 'n', query: { keyphrases: [{ text: 'x', include: true }] } }), full: () => ({ name: 'n', query: { tags: [{ tagSlug: 'crypto', include: true }], keyphrases: [{ text: 'x', include: true }], searchMatchOperator: 'AND' }, events: { [eventId]: { autoFetch: true, markets: [`${eventId}0`] } } }) },
  { method: 'patch', name: '/watchlists/{id}', path: () => `/watchlists/${watchlistId}`, schema: watchlists.UpdateWatchlistInput, valid: () => ({ name: 'n' }) },
  { method: 'patch', name: '/watchlists/{id}/query/tags', path: () => `/watchlists/${watchlistId}/query/tags`, schema: watchlists.UpdateTagsInput, valid: () => ({ includeTags: ['a'], excludeTags: [], matchOperator: 'OR' }), full: () => ({ includeTags: ['a'], excludeTags: ['b'], matchOperator: 'AND' }) },
  { method: 'patch', name: '/watchlists/{id}/query/keyphrases', path: () => `/watchlists/${watchlistId}/query/keyphrases`, schema: watchlists.UpdateKeyphrasesInput, valid: () => ({ keyphrases: [{ text: 'x', include: true }] }) },
  { method: 'put', name: '/watchlists/{id}/events/{eventId}', path: () => `/watchlists/${watchlistId}/events/${eventId}`, schema: watchlists.EventSelection, valid: () => ({ autoFetch: false }), full: () => ({ autoFetch: false, markets: [`${eventId}0`] }) },
  { method: 'post', name: '/watchlists/delete', path: () => '/watchlists/delete', schema: watchlists.DeleteWatchlistInput, valid: () => ({ watchListId: 'nope' }), fixedError: 'Invalid request body' },
  { method: 'post', name: '/subscriptions', path: () => '/subscriptions', schema: subs.CreateSubscriptionInput, valid: validSubscription, full: () => ({ ...validSubscription(), channels: [{ type: 'In App' }, webhook, discord], expiresAt: future() }) },
  { method: 'patch', name: '/subscription/{id}', path: () => `/subscription/${subscriptionId}`, schema: subs.UpdateSubscriptionInput, valid: () => ({ triggerInterval: '60m' }), full: () => ({ triggerType: 'Recurring', triggerInterval: '60m', channels: [webhook, discord], expiresAt: future() }) },
  { method: 'put', name: '/subscription/{id}/preferences', path: () => `/subscription/${subscriptionId}/preferences`, schema: subs.PreferencesInput, valid: () => ({ delivery: 'daily' }), full: () => ({ snoozedUntil: future(), delivery: 'hourly', rearmPoints: 1 }) },
  { method: 'post', name: '/subscription/{id}/snooze', path: () => `/subscription/${subscriptionId}/snooze`, schema: subs.SnoozeInput, valid: () => ({ for: '1h' }), full: () => ({ until: future() }) },
  { method: 'put', name: '/preferences', path: () => '/preferences', schema: accounts.AccountPreferencesInput, valid: () => ({ timezone: 'UTC' }), full: () => ({ timezone: 'Europe/Berlin', quietHours: { start: '22:00', end: '07:00', channels: ['Telegram'] } }) },
  { method: 'post', name: '/tokens', path: () => '/tokens', schema: CreateTokenInput, valid: () => ({ name: 't' }), full: () => ({ name: 't', expiresAt: future() }) },
];

// Whole random values, and valid bodies with one field replaced by a random value.
function bodies(endpoint: Endpoint) {
  const whole = fc.anything({ maxDepth: 3, withNullPrototype: false, stringUnit: nastyUnit });
  const valid = endpoint.valid();
  const mutated = fc
    .tuple(fc.constantFrom(...Object.keys(valid)), fc.anything({ maxDepth: 2, stringUnit: nastyUnit }))
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

  for (const endpoint of endpoints) {
    it(`${endpoint.method.toUpperCase()} ${endpoint.name}: NUL or a lone surrogate in any string is a 400 naming the field`, async () => {
      const before = await snapshot();
      await fc.assert(
        fc.asyncProperty(withBadCharacter((endpoint.full ?? endpoint.valid)()), async ({ body, field, isKey }) => {
          const res = await env.http[endpoint.method](endpoint.path()).set(a.auth).set('content-type', 'application/json').send(JSON.stringify(body));
          expect(res.status, JSON.stringify(body)).toBe(400);
          expect(res.body).toEqual({ error: expect.any(String) });
          // A spoiled key of a fixed-shape object is an unknown key, and the answer says so instead.
          if (endpoint.fixedError) expect(res.body.error).toBe(endpoint.fixedError);
          else if (!isKey) expect(res.body.error, JSON.stringify(body)).toContain(field);
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

const validBodies: Record<string, () => Record<string, unknown>> = Object.fromEntries(endpoints.map((e) => [`${e.method} ${e.name}`, e.valid]));

describe(`bad characters in path parameters and query strings (${engineName})`, () => {
  const routes = [...watchlistRoutes, ...subscriptionRoutes, ...accountRoutes, ...notificationRoutes].filter((r) => pathParams(r.path).length > 0);
  const good = (): Record<string, string> => ({ watchlistId, eventId, subscriptionId, tokenId: 'x', notificationId: 'x' });

  it('every route with a path parameter answers 400 {error} to NUL or a lone surrogate in it, and changes nothing', async () => {
    const before = await snapshot();
    const cases = fc.constantFrom(...routes).chain((route) => fc.tuple(fc.constant(route), fc.constantFrom(...pathParams(route.path)), badPathSegment));
    await fc.assert(
      fc.asyncProperty(cases, async ([route, param, segment]) => {
        const values = { ...good(), [param]: segment };
        const path = expressPath(route.path).replace(/:(\w+)/g, (_m, name: string) => values[name] ?? encodeURIComponent(name));
        const req = env.http[route.method](path).set(a.auth);
        const valid = validBodies[`${route.method} ${route.path.replace(/\{\w+\}/, '{id}')}`];
        const res = await (valid ? req.send(valid()) : req);
        expect(res.status, `${route.method} ${path}`).toBe(400);
        expect(res.body).toEqual({ error: expect.any(String) });
        if (segment.includes('%00')) expect(res.body.error).toContain(param);
      }),
      { numRuns: 120 },
    );
    expect(await snapshot()).toBe(before);
  });

  it('query parameters with NUL are a 400 naming the parameter', async () => {
    for (const name of ['before', 'limit', 'unread']) {
      const res = await env.http.get(`/notifications?${name}=a%00b`).set(a.auth);
      expect(res.status, name).toBe(400);
      expect(res.body.error).toContain(name);
    }
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService, type RunningService } from '../../src/service.js';
import { insertAccountWithToken } from '../../src/services/accounts/index.js';
import { startReceiver, type Receiver } from '../delivery/support/receiver.js';
import { waitFor } from '../support/wait.js';

let service: RunningService;
let receiver: Receiver;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'oddswatch-e2e-'));
  receiver = await startReceiver((_req, res) => res.writeHead(200).end('ok'));
  const config = parseConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    VENUE: 'simulator',
    SIMULATOR_PORT: '0',
    SIMULATOR_RANDOM_WALK: 'false',
    ROLES: 'api,engine,worker,sync',
    ALLOW_PRIVATE_URLS: 'true',
    LOG_LEVEL: 'silent',
  });
  service = await startService(config, createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'));
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await receiver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const json = { 'content-type': 'application/json' };

async function call(method: string, route: string, token: string | undefined, body?: unknown) {
  const res = await fetch(`${service.url}${route}`, {
    method,
    headers: { ...json, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const movePrice = (marketId: string, price: number, legacy = false) =>
  fetch(`${service.venue.controlUrl}/markets/${marketId}/price`, { method: 'POST', headers: json, body: JSON.stringify({ price, legacy }) });

describe('the whole service on PGlite against the in-process venue simulator', () => {
  it('turns a price moved with the control endpoint into a notification, delivered in the app and by webhook', async () => {
    const { token } = await insertAccountWithToken(service.database.db, {});
    // The first catalog sync runs at start; search shows the catalog once it is in.
    const found = await waitFor(
      async () => {
        const res = await call('POST', '/search', undefined, { keyphrases: [{ text: 'bitcoin', include: true }], searchMatchOperator: 'OR' });
        return res.body.length > 0 && res;
      },
      { timeoutMs: 10_000, intervalMs: 100, message: 'the first catalog sync (search finds bitcoin)' },
    );
    expect(found.status).toBe(200);
    const event = found.body[0];
    const market = event.markets[0];

    const wl = await call('POST', '/watchlists', token, { name: 'BTC', events: { [event.id]: { autoFetch: true } } });
    expect(wl.status).toBe(201);
    await movePrice(market.id, 0.3);
    const sub = await call('POST', '/subscriptions', token, {
      watchlistId: wl.body.watchList.id,
      subscriptionScope: 'Market',
      eventId: event.id,
      marketId: market.id,
      subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 50 } } },
      triggerType: 'One Time',
      channels: [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: `${receiver.url}/hook` } }],
    });
    expect(sub.status).toBe(201);

    // The engine learns of the rule through the change feed and then subscribes to the market: moves
    // made before that are not seen, so the price goes across again until the crossing fires.
    const notifications: any[] = await waitFor(
      async () => {
        await movePrice(market.id, 0.3);
        await movePrice(market.id, 0.7);
        const listed = (await call('GET', '/notifications', token)).body.notifications;
        return listed.length > 0 && listed;
      },
      { timeoutMs: 15_000, intervalMs: 150, message: 'the crossing to fire' },
    );
    expect(notifications).toHaveLength(1);
    const payload = notifications[0].payload;
    expect(payload).toMatchObject({
      type: 'price_notification',
      subscriptionId: sub.body.subscription.subscriptionId,
      marketId: market.id,
      eventId: event.id,
      polymarketSlug: event.slug,
      detectedValue: 0.7,
    });

    await waitFor(() => receiver.requests.length > 0, { timeoutMs: 5000, message: 'the webhook delivery' });
    expect(JSON.parse(receiver.requests[0]!.body)).toEqual(payload);
    const deliveries = await call('GET', `/notifications/${notifications[0].id}/deliveries`, token);
    expect(deliveries.body.deliveries.map((d: any) => [d.channel, d.status])).toEqual([
      ['In App', 'SENT'],
      ['Webhook', 'SENT'],
    ]);
    const after = await call('GET', `/subscription/${sub.body.subscription.subscriptionId}`, token);
    expect(after.body.subscription).toMatchObject({ status: { enabled: false, reason: 'Triggered' }, triggerCount: 1 });
  });

  it('fires on moves the venue sends in the legacy `changes` form, which carry no top of book', async () => {
    const { token } = await insertAccountWithToken(service.database.db, {});
    const found = await call('POST', '/search', undefined, { keyphrases: [{ text: 'bitcoin', include: true }], searchMatchOperator: 'OR' });
    const event = found.body.find((e: any) => e.markets.length > 1) ?? found.body[0];
    const market = event.markets.at(-1);
    const wl = await call('POST', '/watchlists', token, { name: 'Legacy feed', events: { [event.id]: { autoFetch: true } } });
    expect(wl.status).toBe(201);
    await movePrice(market.id, 0.2);
    const sub = await call('POST', '/subscriptions', token, {
      watchlistId: wl.body.watchList.id,
      subscriptionScope: 'Market',
      eventId: event.id,
      marketId: market.id,
      subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 50 } } },
      triggerType: 'One Time',
      channels: [{ type: 'In App' }],
    });
    expect(sub.status).toBe(201);

    // Every move below goes out as legacy messages; only the kept levels can show it.
    const mine: any[] = await waitFor(
      async () => {
        await movePrice(market.id, 0.2, true);
        await movePrice(market.id, 0.8, true);
        const all = (await call('GET', '/notifications', token)).body.notifications;
        const own = all.filter((n: any) => n.payload.subscriptionId === sub.body.subscription.subscriptionId);
        return own.length > 0 && own;
      },
      { timeoutMs: 15_000, intervalMs: 150, message: 'the crossing to fire on legacy messages' },
    );
    expect(mine).toHaveLength(1);
    expect(mine[0].payload).toMatchObject({
      marketId: market.id,
      detectedValue: 0.8,
      polymarketSourceEvent: { event_type: 'price_change', changes: expect.any(Array) },
    });
  });

  it('with rearmPoints 2, a price oscillating around the threshold fires once, and again after going back past the band', async () => {
    const { token } = await insertAccountWithToken(service.database.db, {});
    const found = await waitFor(
      async () => {
        const res = await call('POST', '/search', undefined, { keyphrases: [{ text: 'bitcoin', include: true }], searchMatchOperator: 'OR' });
        return res.body.length > 0 && res;
      },
      { timeoutMs: 10_000, intervalMs: 100, message: 'the catalog sync' },
    );
    const event = found.body.at(-1);
    const market = event.markets[0];
    const wl = await call('POST', '/watchlists', token, { name: 'Re-arm', events: { [event.id]: { autoFetch: true } } });
    expect(wl.status).toBe(201);
    await movePrice(market.id, 0.45);
    const subscribe = async (type: string, threshold: number, triggerType: string) => {
      const res = await call('POST', '/subscriptions', token, {
        watchlistId: wl.body.watchList.id, subscriptionScope: 'Market', eventId: event.id, marketId: market.id,
        subscriptionTypeConfig: { type, config: { params: { threshold_percent: threshold } } },
        triggerType, ...(triggerType === 'Recurring' ? { triggerInterval: '0m' } : {}), channels: [{ type: 'In App' }],
      });
      expect(res.status).toBe(201);
      return res.body.subscription.subscriptionId as string;
    };
    const banded = await subscribe('Crossing Up', 50, 'Recurring');
    const prefs = await call('PUT', `/subscription/${banded}/preferences`, token, { rearmPoints: 2 });
    expect(prefs.body).toEqual({ snoozedUntil: null, delivery: 'instant', rearmPoints: 2 });
    // The same rule without a band ticks like a metronome: once it has fired, the engine has
    // evaluated the move for the banded rule too.
    const metronome = await subscribe('Crossing Up', 50, 'Recurring');
    // Fires as soon as the engine has loaded it, hence everything announced before it (the band).
    const sentinel = await subscribe('Greater Than', 40, 'One Time');
    const fired = async () => {
      const all: any[] = (await call('GET', '/notifications', token)).body.notifications;
      const of = (id: string) => all.filter((n) => n.payload.subscriptionId === id);
      return { banded: of(banded), metronome: of(metronome).length, sentinel: of(sentinel).length };
    };
    await waitFor(async () => (await fired()).sentinel === 1, { timeoutMs: 15_000, intervalMs: 100, message: 'the engine to load the rules' });
    let beats = 0;
    const upThrough = async (...prices: number[]) => {
      for (const price of prices) await movePrice(market.id, price);
      beats++;
      return waitFor(async () => { const f = await fired(); return f.metronome === beats && f; }, { timeoutMs: 10_000, intervalMs: 50, message: `crossing ${beats}` });
    };

    expect((await upThrough(0.51)).banded).toHaveLength(1);
    for (let i = 0; i < 5; i++) expect((await upThrough(0.49, 0.51)).banded).toHaveLength(1);
    const again = (await upThrough(0.47, 0.51)).banded;
    expect(again).toHaveLength(2);
    expect(again.map((n: any) => n.payload.detectedValue).sort()).toEqual([0.51, 0.51]);
    expect(again.find((n: any) => n.payload.detectionDetails.previousValue === 0.47)).toBeDefined();
  });

  it('shows each market connection\'s feed lag in /readyz details and /metrics', async () => {
    const { token } = await insertAccountWithToken(service.database.db, {});
    const found = await call('POST', '/search', undefined, { keyphrases: [{ text: 'bitcoin', include: true }], searchMatchOperator: 'OR' });
    const event = found.body[0];
    const wl = await call('POST', '/watchlists', token, { name: 'lag', events: { [event.id]: { autoFetch: true } } });
    const sub = await call('POST', '/subscriptions', token, {
      watchlistId: wl.body.watchList.id,
      subscriptionScope: 'Market',
      eventId: event.id,
      marketId: event.markets[0].id,
      subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 99 } } },
      triggerType: 'Recurring',
      channels: [{ type: 'In App' }],
    });
    expect(sub.status).toBe(201);
    const ready = await waitFor(
      async () => {
        const res = await call('GET', '/readyz', undefined);
        return res.body.details?.feed?.length > 0 && res;
      },
      { timeoutMs: 10_000, intervalMs: 100, message: 'a market connection in /readyz details.feed' },
    );
    expect(ready.status).toBe(200);
    expect(ready.body.details.feed[0]).toMatchObject({ connection: 0, open: true, tokens: expect.any(Number) });
    expect(ready.body.details.feed[0].lagSeconds).toBeLessThan(60);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/oddswatch_feed_lag_seconds\{connection="0"\} \d/);
  });
});

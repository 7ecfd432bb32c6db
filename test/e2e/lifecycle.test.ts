import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService, type RunningService } from '../../src/service.js';
import { insertAccountWithToken } from '../../src/services/accounts/index.js';
import { startReceiver, type Receiver } from '../delivery/support/receiver.js';
import { expectNothingFor, waitFor } from '../support/wait.js';

// The whole service on PGlite with the in-process simulator: the sync loop, the engine's catalog
// consumer and Closing Soon timer, and the delivery worker, on their own timers, as deployed.

let service: RunningService;
let receiver: Receiver;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'oddswatch-e2e-lifecycle-'));
  receiver = await startReceiver((_req, res) => res.writeHead(200).end('ok'));
  const config = parseConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    VENUE: 'simulator',
    SIMULATOR_PORT: '0',
    SIMULATOR_RANDOM_WALK: 'false',
    ROLES: 'api,engine,worker,sync',
    SYNC_INTERVAL_MS: '1000',
    CLOSING_SOON_CHECK_MS: '300',
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

const control = async (route: string, body: unknown) => {
  const res = await fetch(`${service.venue.controlUrl}${route}`, { method: 'POST', headers: json, body: JSON.stringify(body) });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as any;
};

describe('Resolution and Closing Soon in the running service (simulator, PGlite)', () => {
  it('a proposal and an end date moved near reach a webhook as event_status_notification', async () => {
    const { token } = await insertAccountWithToken(service.database.db, {});
    const { event } = await control('/events', { title: 'Zorblax mayor race', markets: [{ question: 'Will Zorblax win?' }] });
    const market = event.markets[0];
    // The event is in the catalog once a sync has run.
    const wl = await waitFor(
      async () => {
        const res = await call('POST', '/watchlists', token, { name: `Zorblax ${Math.random()}`, events: { [event.id]: { autoFetch: true } } });
        return res.status === 201 && res.body.watchList.id;
      },
      { timeoutMs: 10_000, intervalMs: 200, message: 'the event in the catalog' },
    );
    const hook = [{ type: 'Webhook', settings: { webhookUrl: `${receiver.url}/hook` } }];
    for (const typeConfig of [
      { type: 'Resolution', config: { params: {} } },
      { type: 'Closing Soon', config: { params: { hours_before: 24 } } },
    ]) {
      const sub = await call('POST', '/subscriptions', token, {
        watchlistId: wl,
        subscriptionScope: 'Market',
        eventId: event.id,
        marketId: market.id,
        subscriptionTypeConfig: typeConfig,
        triggerType: 'Recurring',
        channels: hook,
      });
      expect(sub.status).toBe(201);
    }

    await control(`/markets/${market.id}/resolution`, { status: 'proposed', outcome: 'Yes' });
    const endDate = new Date(Date.now() + 20 * 3_600_000).toISOString();
    await control(`/markets/${market.id}/end-date`, { endDate });
    const bodies = await waitFor(
      () => {
        const got = receiver.requests.map((r) => JSON.parse(r.body)).filter((b) => b.marketId === market.id);
        return got.length >= 2 && got;
      },
      { timeoutMs: 15_000, intervalMs: 100, message: 'both notices at the webhook' },
    );
    const byTrigger = Object.fromEntries(bodies.map((b: any) => [b.triggerType, b]));
    expect(byTrigger.Resolution).toMatchObject({
      type: 'event_status_notification',
      eventStatusScope: 'Market',
      marketQuestion: 'Will Zorblax win?',
      detectionDetails: { resolutionStatus: 'proposed', previousResolutionStatus: '' },
    });
    expect(byTrigger['Closing Soon']).toMatchObject({
      type: 'event_status_notification',
      subscriptionTypeConfig: { type: 'Closing Soon', config: { params: { hours_before: 24 } } },
      detectionDetails: { endDate, hoursBefore: 24 },
    });
    // Further syncs (1 s) and checks (0.3 s) add nothing.
    const more = () => receiver.requests.map((r) => JSON.parse(r.body)).filter((b) => b.marketId === market.id).slice(2);
    await expectNothingFor(2500, more, { intervalMs: 100, message: 'another notice' });
  });
});

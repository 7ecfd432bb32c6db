import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogChanges, demoWebhooks } from '../../src/db/schema/index.js';
import { createCatalogChangeConsumer } from '../../src/runner/catalog-changes.js';
import { createLogger } from '../../src/logger.js';
import { newId } from '../../src/services/ids.js';
import { startReceiver, type Receiver } from '../delivery/support/receiver.js';
import { seedEvent } from '../support/catalog.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { OUTBOX_SETTINGS, startWorker } from './support.js';
import { expectNothingFor, waitFor } from '../support/wait.js';

let env: TestEnv;
let receiver: Receiver;
beforeAll(async () => {
  env = await createTestEnv(OUTBOX_SETTINGS);
  receiver = await startReceiver((_req, res) => res.writeHead(204).end());
});
afterAll(async () => {
  await receiver?.close();
  await env?.close();
});

describe(`demo webhooks receive every catalog change (${engineName})`, () => {
  it('sends the event status shape without subscription and watchlist fields, once per change', async () => {
    const owner = await env.newAccount();
    const hookId = newId();
    await env.database.db.insert(demoWebhooks).values([
      { id: hookId, accountId: owner.userId, url: `${receiver.url}/demo` },
      { id: newId(), accountId: owner.userId, url: `${receiver.url}/deleted`, active: false },
    ]);
    const event = await seedEvent(env.database, { title: 'Demo event', markets: 1 });
    const consumer = createCatalogChangeConsumer({ database: env.database, logger: createLogger('silent'), afterId: 0 });
    await env.database.db.insert(catalogChanges).values({ kind: 'closed_event', eventId: event.id, detectedAt: new Date('2026-05-01T00:00:00Z') });
    await consumer.processPending();
    await consumer.processPending();

    const worker = await startWorker(env.database, env.config);
    try {
      await waitFor(() => receiver.requests.length >= 1);
      await expectNothingFor(300, () => receiver.requests.slice(1), { message: 'a second request (the inactive hook, or a duplicate)' });
    } finally {
      await worker.stop();
    }
    expect(receiver.requests.map((r) => r.url)).toEqual(['/demo']);
    const body = JSON.parse(receiver.requests[0]!.body);
    expect(body).toEqual({
      type: 'event_status_notification',
      userId: owner.userId,
      eventStatusScope: 'Event',
      triggerType: 'Closed',
      createdAt: expect.any(String),
      eventId: event.id,
      eventTitle: 'Demo event',
      marketId: event.markets[0]!.id,
      marketQuestion: event.markets[0]!.question,
      outcomes: '["Yes","No"]',
      outcomePrices: '["0.5","0.5"]',
      polymarketSlug: event.slug,
      detectedAt: '2026-05-01T00:00:00.000Z',
      detectedAtMs: Date.parse('2026-05-01T00:00:00Z'),
      channels: [{ type: 'Webhook' }],
    });
    expect(receiver.requests[0]!.headers['webhook-signature']).toMatch(/^v1,/);
  });
});

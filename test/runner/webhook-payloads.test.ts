import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogChanges } from '../../src/db/schema/index.js';
import { webhookBody } from '../../src/delivery/senders/webhook-body.js';
import { createCatalogChangeConsumer } from '../../src/runner/catalog-changes.js';
import { EventStatusNotification, PriceNotification } from '../../src/http/webhook-payloads.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { clock, notificationsOf, seedEvent, silent, startRunner, subscribe, watchlistWith } from './helpers.js';

// The OpenAPI `webhooks` section is only worth reading if it is what a receiver gets: the bodies
// the engine writes, as the webhook sender shapes them, must match the documented schemas exactly.

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

const HOOK = 'http://127.0.0.1:9/hook';
const channels = [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: HOOK } }];

describe(`webhook payloads match the OpenAPI document (${engineName})`, () => {
  it('a fired price rule sends a body the price_notification schema accepts', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { title: 'Rain in Paris', markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const market = event.markets[0]!;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: market.id, threshold: 60, channels });
    const c = clock();
    const runner = startRunner(env, c);
    await runner.start();
    try {
      runner.onPrice(market.yesTokenId, 0.5, c.now());
      c.advance(1000);
      runner.onPrice(market.yesTokenId, 0.65, c.now() - 5, { event_type: 'price_change', market: '0xabc', timestamp: '123' }, 123);
      await runner.idle();
    } finally {
      await runner.stop();
    }
    const [row] = await notificationsOf(env, subId);
    const body = webhookBody(row!.payload, HOOK);
    expect(PriceNotification.safeParse(body).error?.issues).toBeUndefined();
    expect(body).toMatchObject({ type: 'price_notification', polymarketSourceEvent: { market: '0xabc' } });
  });

  it('catalog changes send bodies the event_status_notification schema accepts, with and without market fields', async () => {
    const a = await env.newAccount();
    const single = await seedEvent(env.database, { markets: 1 });
    const multi = await seedEvent(env.database, { markets: 2 });
    const wl = await watchlistWith(env, a, [single, multi]);
    const subId = await subscribe(env, a, wl, { scope: 'Watchlist', type: 'New or closed events and markets', channels });
    const consumer = createCatalogChangeConsumer({ database: env.database, logger: silent });
    await consumer.processPending();
    await env.database.db.insert(catalogChanges).values([
      { kind: 'new_event', eventId: multi.id },
      { kind: 'closed_event', eventId: single.id },
      { kind: 'closed_event', eventId: multi.id },
    ]);
    await consumer.processPending();
    const bodies = (await notificationsOf(env, subId)).map((r) => webhookBody(r.payload, HOOK));
    expect(bodies.length).toBeGreaterThanOrEqual(4);
    for (const body of bodies) expect(EventStatusNotification.safeParse(body).error?.issues).toBeUndefined();
    expect(bodies.some((b) => 'marketId' in b)).toBe(true);
    expect(bodies.some((b) => !('marketId' in b))).toBe(true);
  });
});

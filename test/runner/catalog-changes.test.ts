import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogChanges, catalogMarkets } from '../../src/db/schema/index.js';
import { createCatalogChangeConsumer } from '../../src/runner/catalog-changes.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import {
  clock, deliveriesOf, getSub, notificationsOf, seedEvent, silent, startRunner, subscribe, watchlistWith,
} from './helpers.js';
import { waitFor } from '../support/wait.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

const CATALOG = 'New or closed events and markets';

describe(`engine runner: catalog changes (${engineName})`, () => {
  it('writes event_status_notification for new and closed markets and closes Market-scoped rules', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { title: 'Election', markets: 2 });
    const wl = await watchlistWith(env, a, [event]);
    const [m0, m1] = event.markets;
    const catalogSub = await subscribe(env, a, wl, { scope: 'Event', eventId: event.id, type: CATALOG });
    const priceSub = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m0!.id });
    const eventPriceSub = await subscribe(env, a, wl, { scope: 'Event', eventId: event.id });
    const runner = startRunner(env, clock());
    await runner.start();
    const consumer = createCatalogChangeConsumer({ database: env.database, logger: silent, onEventChanged: (id) => runner.reloadEvent(id) });
    await consumer.processPending();
    expect(runner.tokens()).toEqual(expect.arrayContaining([m0!.yesTokenId, m1!.yesTokenId]));

    // A new market opens in the event.
    const newMarket = { id: `${event.id}9`, yesTokenId: `${event.id}91`.padEnd(77, '7') };
    await env.database.db.insert(catalogMarkets).values({
      id: newMarket.id, eventId: event.id, position: 9, question: 'New one?', outcomes: ['Yes', 'No'],
      outcomePrices: [0.2, 0.8], clobTokenIds: [newMarket.yesTokenId, 'x'], yesTokenId: newMarket.yesTokenId,
    });
    const detectedAt = new Date('2026-03-01T10:00:00.000Z');
    await env.database.db.insert(catalogChanges).values({ kind: 'new_market', eventId: event.id, marketId: newMarket.id, detectedAt });
    expect(await consumer.processPending()).toBe(1);
    expect(runner.tokens()).toContain(newMarket.yesTokenId);

    let rows = await notificationsOf(env, catalogSub);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.type).toBe('event_status_notification');
    expect(rows[0]!.payload).toEqual({
      type: 'event_status_notification',
      userId: a.userId,
      eventStatusScope: 'Market',
      triggerType: 'Open',
      createdAt: expect.any(String),
      subscriptionId: catalogSub,
      watchlistId: wl,
      watchlistName: expect.any(String),
      eventId: event.id,
      eventTitle: 'Election',
      marketId: newMarket.id,
      marketQuestion: 'New one?',
      outcomes: '["Yes","No"]',
      outcomePrices: '["0.2","0.8"]',
      polymarketSlug: event.slug,
      detectedAt: detectedAt.toISOString(),
      detectedAtMs: detectedAt.getTime(),
      channels: [{ type: 'In App' }],
    });
    expect(await deliveriesOf(env, rows[0]!.id)).toMatchObject([{ status: 'PENDING' }]);
    expect((await getSub(env, a, catalogSub)).triggerCount).toBe(1);

    // A market closes: a Closed notice, and its Market-scoped price rule stops.
    await env.database.db.update(catalogMarkets).set({ closed: true }).where(eq(catalogMarkets.id, m0!.id));
    await env.database.db.insert(catalogChanges).values({ kind: 'closed_market', eventId: event.id, marketId: m0!.id });
    await consumer.processPending();
    rows = await notificationsOf(env, catalogSub);
    expect(rows.map((r) => [r.payload.eventStatusScope, r.payload.triggerType, r.payload.marketId])).toEqual([
      ['Market', 'Open', newMarket.id],
      ['Market', 'Closed', m0!.id],
    ]);
    expect((await getSub(env, a, priceSub)).status).toEqual({ enabled: false, reason: 'Market closed' });
    expect((await getSub(env, a, eventPriceSub)).status.enabled).toBe(true);
    await waitFor(() => { expect(runner.tokens()).not.toContain(m0!.yesTokenId); return true; });

    // The event closes: an Event/Closed notice without market fields; Event-scoped rules stop.
    await env.database.db.insert(catalogChanges).values({ kind: 'closed_event', eventId: event.id });
    await consumer.processPending();
    rows = await notificationsOf(env, catalogSub);
    const last = rows.at(-1)!.payload;
    expect(last).toMatchObject({ eventStatusScope: 'Event', triggerType: 'Closed', eventId: event.id });
    expect(last).not.toHaveProperty('marketId');
    expect((await getSub(env, a, eventPriceSub)).status).toEqual({ enabled: false, reason: 'Event closed' });
    expect((await getSub(env, a, catalogSub)).status).toEqual({ enabled: false, reason: 'Event closed' });

    // Processing again writes nothing new.
    await consumer.processPending();
    expect(await notificationsOf(env, catalogSub)).toHaveLength(3);
    await runner.stop();
  });

  it('a closed single-market event names its market; a new event gives one notice per market', async () => {
    const a = await env.newAccount();
    const single = await seedEvent(env.database, { markets: 1 });
    const multi = await seedEvent(env.database, { markets: 3 });
    const wl = await watchlistWith(env, a, [single, multi]);
    const sub = await subscribe(env, a, wl, { scope: 'Watchlist', type: CATALOG });
    const consumer = createCatalogChangeConsumer({ database: env.database, logger: silent });
    await consumer.processPending();
    await env.database.db.insert(catalogChanges).values([
      { kind: 'new_event', eventId: multi.id },
      { kind: 'closed_event', eventId: single.id },
    ]);
    expect(await consumer.processPending()).toBe(2);
    const rows = await notificationsOf(env, sub);
    const opens = rows.filter((r) => r.payload.triggerType === 'Open');
    expect(opens.map((r) => r.payload.marketId).sort()).toEqual(multi.markets.map((m) => m.id).sort());
    const closed = rows.find((r) => r.payload.triggerType === 'Closed')!;
    expect(closed.payload).toMatchObject({
      eventStatusScope: 'Event', eventId: single.id, marketId: single.markets[0]!.id,
      marketQuestion: single.markets[0]!.question, outcomes: '["Yes","No"]',
    });
    expect((await getSub(env, a, sub)).status).toEqual({ enabled: true, reason: 'Triggered' });
  });

  it('handles at the next start the changes made while no engine ran, and not the ones already handled', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 2 });
    const wl = await watchlistWith(env, a, [event]);
    const sub = await subscribe(env, a, wl, { scope: 'Event', eventId: event.id, type: CATALOG });
    const first = createCatalogChangeConsumer({ database: env.database, logger: silent });
    await first.processPending();
    await env.database.db.insert(catalogChanges).values({ kind: 'closed_market', eventId: event.id, marketId: event.markets[0]!.id });
    expect(await first.processPending()).toBe(1);
    await first.stop();

    // The engine is down while the second market closes; the next one picks it up where the first stopped.
    await env.database.db.insert(catalogChanges).values({ kind: 'closed_market', eventId: event.id, marketId: event.markets[1]!.id });
    const next = createCatalogChangeConsumer({ database: env.database, logger: silent });
    expect(await next.processPending()).toBe(1);
    const closed = (await notificationsOf(env, sub)).map((r) => r.payload.marketId);
    expect(closed.sort()).toEqual(event.markets.map((m) => m.id).sort());
  });

  it('a first start that stops before any change still handles the changes made while it was down', async () => {
    const fresh = await createTestEnv();
    try {
      const a = await fresh.newAccount();
      const event = await seedEvent(fresh.database, { markets: 1 });
      const wl = await watchlistWith(fresh, a, [event]);
      const sub = await subscribe(fresh, a, wl, { scope: 'Event', eventId: event.id, type: CATALOG });
      const first = createCatalogChangeConsumer({ database: fresh.database, logger: silent });
      expect(await first.processPending()).toBe(0);
      await first.stop();
      await fresh.database.db.insert(catalogChanges).values({ kind: 'closed_market', eventId: event.id, marketId: event.markets[0]!.id });
      const next = createCatalogChangeConsumer({ database: fresh.database, logger: silent });
      expect(await next.processPending()).toBe(1);
      expect(await notificationsOf(fresh, sub)).toHaveLength(1);
    } finally {
      await fresh.close();
    }
  });
});

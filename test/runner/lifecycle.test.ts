import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookBody } from '../../src/delivery/senders/webhook-body.js';
import { EventStatusNotification } from '../../src/http/webhook-payloads.js';
import { createCatalogChangeConsumer } from '../../src/runner/catalog-changes.js';
import { runCommand } from '../../src/bots/commands/index.js';
import { openDatabase } from '../../src/db/index.js';
import { createClosingSoonChecker } from '../../src/runner/closing-soon.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { postJson, silent, startSimulatorWithSync } from '../venue/support.js';
import { clock, deliveriesOf, getSub, notificationsOf } from './helpers.js';

// Resolution and Closing Soon through the simulator: its controls change the venue, the catalog
// sync sees it, the engine's catalog consumer and Closing Soon timer fire the rules.

type Started = Awaited<ReturnType<typeof startSimulatorWithSync>>;

let env: TestEnv;
let s: Started;
let sync: Started['sync'];

const HOUR = 3_600_000;

beforeAll(async () => {
  env = await createTestEnv();
  s = await startSimulatorWithSync(env.database, { eventCount: 6 });
  sync = s.sync;
  await sync();
});
afterAll(async () => {
  await s?.sim.stop();
  await env?.close();
});

const control = (path: string, body: unknown) => postJson(`${s.urls.controlUrl}${path}`, body);

async function newEvent(markets: number, endDate?: Date) {
  const res = await control('/events', {
    title: `Lifecycle ${Math.random()}`,
    markets: Array.from({ length: markets }, (_, i) => ({ question: `Will thing ${i} happen?`, price: 0.3 })),
    ...(endDate ? { endDate: endDate.toISOString() } : {}),
  });
  expect(res.status).toBe(201);
  await sync();
  return res.json.event as { id: string; endDate: string; markets: { id: string }[] };
}

async function watchlistOf(a: TestAccount, eventId: string): Promise<string> {
  const res = await env.http.post('/watchlists').set(a.auth).send({ name: `wl ${Math.random()}`, events: { [eventId]: { autoFetch: true } } });
  expect(res.status).toBe(201);
  return res.body.watchList.id as string;
}

interface Rule {
  scope: 'Market' | 'Event' | 'Watchlist';
  type: 'Resolution' | 'Closing Soon';
  params?: Record<string, unknown>;
  triggerType?: 'One Time' | 'Recurring';
  eventId?: string;
  marketId?: string;
  expiresAt?: string;
}

async function rule(a: TestAccount, watchlistId: string, r: Rule): Promise<string> {
  const res = await env.http
    .post('/subscriptions')
    .set(a.auth)
    .send({
      watchlistId,
      subscriptionScope: r.scope,
      ...(r.eventId ? { eventId: r.eventId } : {}),
      ...(r.marketId ? { marketId: r.marketId } : {}),
      ...(r.expiresAt ? { expiresAt: r.expiresAt } : {}),
      subscriptionTypeConfig: { type: r.type, config: { params: r.params ?? {} } },
      triggerType: r.triggerType ?? 'Recurring',
      channels: [{ type: 'In App' }],
    });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.subscription.subscriptionId as string;
}

/** Each notice's market and detectionDetails; every body is checked against the OpenAPI webhook schema. */
const details = async (subscriptionId: string) =>
  (await notificationsOf(env, subscriptionId)).map((n) => {
    expect(EventStatusNotification.parse(webhookBody(n.payload, 'http://127.0.0.1:9/hook'))).toBeTruthy();
    return [n.payload.marketId, (n.payload as { detectionDetails?: unknown }).detectionDetails];
  });

describe(`Resolution rules through the simulator (${engineName})`, () => {
  it('each status change fires once, however many syncs see it; the resolved notice comes before the close', async () => {
    const a = await env.newAccount();
    const event = await newEvent(2);
    const [m0, m1] = event.markets;
    const wl = await watchlistOf(a, event.id);
    const onMarket = await rule(a, wl, { scope: 'Market', type: 'Resolution', eventId: event.id, marketId: m0!.id });
    const onEvent = await rule(a, wl, { scope: 'Event', type: 'Resolution', eventId: event.id, triggerType: 'One Time' });
    const onWatchlist = await rule(a, wl, { scope: 'Watchlist', type: 'Resolution' });
    const paused = await rule(a, wl, { scope: 'Market', type: 'Resolution', eventId: event.id, marketId: m0!.id });
    await env.http.post(`/subscription/${paused}/pause`).set(a.auth).expect(200);
    const consumer = createCatalogChangeConsumer({ database: env.database, logger: silent });
    await consumer.processPending();

    // Proposed (the catalog has no proposed outcome to show), seen by three syncs: one notice per rule.
    expect((await control(`/markets/${m0!.id}/resolution`, { status: 'proposed', outcome: 'No' })).json.market.umaResolutionStatus).toBe('proposed');
    for (let i = 0; i < 3; i++) {
      await sync();
      await consumer.processPending();
    }
    const proposed = { resolutionStatus: 'proposed', previousResolutionStatus: '' };
    expect(await details(onMarket)).toEqual([[m0!.id, proposed]]);
    expect(await details(onEvent)).toEqual([[m0!.id, proposed]]);
    expect(await details(onWatchlist)).toEqual([[m0!.id, proposed]]);
    expect(await details(paused)).toEqual([]);
    const [notice] = await notificationsOf(env, onMarket);
    expect(notice!.type).toBe('event_status_notification');
    expect(notice!.payload).toMatchObject({
      type: 'event_status_notification',
      userId: a.userId,
      eventStatusScope: 'Market',
      triggerType: 'Resolution',
      subscriptionId: onMarket,
      watchlistId: wl,
      eventId: event.id,
      marketId: m0!.id,
      marketQuestion: 'Will thing 0 happen?',
      subscriptionTypeConfig: { type: 'Resolution', config: { params: {} } },
      channels: [{ type: 'In App' }],
    });
    // One Time: spent by its firing.
    expect((await getSub(env, a, onEvent)).status).toEqual({ enabled: false, reason: 'Triggered' });
    expect((await getSub(env, a, onMarket)).status).toEqual({ enabled: true, reason: 'Triggered' });

    // Disputed, then resolved (the proposed No wins): each fires again; the other market stays quiet.
    await control(`/markets/${m0!.id}/resolution`, { status: 'disputed' });
    await sync();
    await consumer.processPending();
    const resolved = await control(`/markets/${m0!.id}/resolution`, { status: 'resolved' });
    expect(resolved.json.market).toMatchObject({ umaResolutionStatus: 'resolved', closed: true, outcomePrices: '["0", "1"]' });
    await sync();
    await consumer.processPending();
    await sync();
    await consumer.processPending();
    const after = [
      [m0!.id, proposed],
      [m0!.id, { resolutionStatus: 'disputed', previousResolutionStatus: 'proposed' }],
      [m0!.id, { resolutionStatus: 'resolved', previousResolutionStatus: 'disputed', outcome: 'No' }],
    ];
    expect(await details(onMarket)).toEqual(after);
    expect(await details(onWatchlist)).toEqual(after);
    expect(await details(onEvent)).toHaveLength(1);
    expect(m1).toBeDefined();
    const last = (await notificationsOf(env, onMarket)).at(-1)!;
    expect(last.payload).toMatchObject({ outcomes: '["Yes","No"]', outcomePrices: '["0","1"]' });
    // The market closed with its resolution: the Market rule told first, then stopped.
    expect((await getSub(env, a, onMarket)).status).toEqual({ enabled: false, reason: 'Market closed' });
    expect((await getSub(env, a, onWatchlist)).status.enabled).toBe(true);
    // The chat inbox says what each notice is, as the chat alert does.
    const inbox = (await runCommand(a.ctx, { kind: 'telegram', chatId: 1, isPrivate: true }, 'inbox')).text;
    expect(inbox).toContain('⚖ Resolved: No · "Will thing 0 happen?"');
    expect(inbox).toContain('⚖ Result disputed · "Will thing 0 happen?"');
    expect(inbox).not.toContain('Market closed');
    await consumer.stop();
  });

  it('the simulator refuses bad resolution and end-date controls', async () => {
    const event = await newEvent(1);
    const id = event.markets[0]!.id;
    expect((await control(`/markets/${id}/resolution`, { status: 'settled' })).status).toBe(400);
    expect((await control(`/markets/${id}/resolution`, { status: 'proposed', outcome: 'Maybe' })).status).toBe(400);
    expect((await control('/markets/999999999/resolution', { status: 'proposed' })).status).toBe(404);
    expect((await control(`/markets/${id}/end-date`, { endDate: 'tomorrow' })).status).toBe(400);
    expect((await control('/markets/999999999/end-date', { endDate: new Date().toISOString() })).status).toBe(404);
    expect((await control('/events', { title: 'x', markets: [{ question: 'q?' }], endDate: 'soon' })).status).toBe(400);
    await control(`/events/${event.id}/close`, {});
    expect((await control(`/markets/${id}/resolution`, { status: 'disputed' })).status).toBe(409);
    expect((await control(`/markets/${id}/end-date`, { endDate: new Date().toISOString() })).status).toBe(409);
  });
});

describe(`Closing Soon rules through the simulator (${engineName})`, () => {
  it('fires a rule once when the endDate comes within its hours, again after it moved out and back in', async () => {
    const c = clock(Math.floor(Date.now() / HOUR) * HOUR);
    const t0 = c.now();
    const at = (hours: number) => new Date(t0 + hours * HOUR);
    const a = await env.newAccount();
    const event = await newEvent(2, at(100));
    const [m0, m1] = event.markets;
    const wl = await watchlistOf(a, event.id);
    const day = await rule(a, wl, { scope: 'Market', type: 'Closing Soon', params: { hours_before: 24 }, eventId: event.id, marketId: m0!.id });
    const sixHours = await rule(a, wl, { scope: 'Event', type: 'Closing Soon', params: { hours_before: 6 }, eventId: event.id });
    const once = await rule(a, wl, { scope: 'Watchlist', type: 'Closing Soon', params: { hours_before: 72 }, triggerType: 'One Time' });
    const checker = createClosingSoonChecker({ database: env.database, logger: silent, now: c.now });
    const check = async () => {
      await sync();
      return checker.checkOnce();
    };
    expect(await check()).toBe(0);

    // 20 h ahead: within 24 h and 72 h, not 6 h. The 72 h One Time rule covers both markets but fires once.
    await control(`/markets/${m0!.id}/end-date`, { endDate: at(20).toISOString() });
    expect(await check()).toBe(2);
    expect(await details(day)).toEqual([[m0!.id, { endDate: at(20).toISOString(), hoursBefore: 24 }]]);
    expect(await details(sixHours)).toEqual([]);
    expect(await details(once)).toEqual([[m0!.id, { endDate: at(20).toISOString(), hoursBefore: 72 }]]);
    expect((await getSub(env, a, once)).status).toEqual({ enabled: false, reason: 'Triggered' });
    const [notice] = await notificationsOf(env, day);
    expect(notice!.payload).toMatchObject({
      type: 'event_status_notification',
      eventStatusScope: 'Market',
      triggerType: 'Closing Soon',
      marketId: m0!.id,
      subscriptionTypeConfig: { type: 'Closing Soon', config: { params: { hours_before: 24 } } },
      detectedAt: at(0).toISOString(),
    });
    // Checked again, and by a second checker (another engine process, or a restart): nothing new.
    const other = createClosingSoonChecker({ database: env.database, logger: silent, now: c.now });
    expect(await Promise.all([check(), other.checkOnce()])).toEqual([0, 0]);

    // Out of the window, then back in: fires again, once the Recurring rule's 30 minutes have passed.
    await control(`/markets/${m0!.id}/end-date`, { endDate: at(48).toISOString() });
    expect(await check()).toBe(0);
    c.advance(10 * 60_000);
    await control(`/markets/${m0!.id}/end-date`, { endDate: at(10).toISOString() });
    expect(await check()).toBe(0);
    c.advance(25 * 60_000);
    expect(await check()).toBe(1);
    expect((await details(day)).map(([, d]) => d)).toEqual([
      { endDate: at(20).toISOString(), hoursBefore: 24 },
      { endDate: at(10).toISOString(), hoursBefore: 24 },
    ]);

    // The clock alone brings the market within 6 h: the Event rule fires for it, not for the other market (100 h away).
    c.advance(3 * HOUR);
    expect(await check()).toBe(0);
    c.advance(HOUR);
    expect(await checker.checkOnce()).toBe(1);
    expect((await details(sixHours)).map(([market]) => market)).toEqual([m0!.id]);
    expect(m1).toBeDefined();

    // A market past its endDate, or closed, fires nothing more.
    c.advance(10 * HOUR);
    expect(await check()).toBe(0);
    expect(await notificationsOf(env, day)).toHaveLength(2);
  });

  it('paused and expired rules never fire; a restarted rule fires at the next check while inside the window', async () => {
    const c = clock(Math.floor(Date.now() / HOUR) * HOUR);
    const t0 = c.now();
    const a = await env.newAccount();
    const event = await newEvent(1, new Date(t0 + 5 * HOUR));
    const market = event.markets[0]!.id;
    const wl = await watchlistOf(a, event.id);
    const expiring = await rule(a, wl, {
      scope: 'Market', type: 'Closing Soon', params: { hours_before: 1 }, eventId: event.id, marketId: market,
      expiresAt: new Date(t0 + 2 * HOUR).toISOString(),
    });
    const paused = await rule(a, wl, { scope: 'Market', type: 'Closing Soon', params: { hours_before: 6 }, eventId: event.id, marketId: market });
    await env.http.post(`/subscription/${paused}/pause`).set(a.auth).expect(200);
    const checker = createClosingSoonChecker({ database: env.database, logger: silent, now: c.now });
    expect(await checker.checkOnce()).toBe(0);
    c.advance(4.5 * HOUR);
    expect(await checker.checkOnce()).toBe(0);
    expect(await notificationsOf(env, expiring)).toEqual([]);
    await env.http.post(`/subscription/${paused}/restart`).set(a.auth).expect(200);
    expect(await checker.checkOnce()).toBe(1);
    expect(await details(paused)).toEqual([[market, { endDate: new Date(t0 + 5 * HOUR).toISOString(), hoursBefore: 6 }]]);
  });

  it('a One Time rule spent by its notice and restarted tells it again', async () => {
    // The clock three hours behind: the restart (stamped with the real time) comes after the firing.
    const c = clock(Date.now() - 3 * HOUR);
    const a = await env.newAccount();
    const endDate = new Date(c.now() + 5 * HOUR);
    const event = await newEvent(1, endDate);
    const market = event.markets[0]!.id;
    const wl = await watchlistOf(a, event.id);
    const once = await rule(a, wl, { scope: 'Market', type: 'Closing Soon', params: { hours_before: 6 }, eventId: event.id, marketId: market, triggerType: 'One Time' });
    const checker = createClosingSoonChecker({ database: env.database, logger: silent, now: c.now });
    expect(await checker.checkOnce()).toBe(1);
    expect(await checker.checkOnce()).toBe(0);
    expect((await getSub(env, a, once)).status).toEqual({ enabled: false, reason: 'Triggered' });
    await env.http.post(`/subscription/${once}/restart`).set(a.auth).expect(200);
    c.advance(60_000);
    expect(await checker.checkOnce()).toBe(1);
    const told = [market, { endDate: endDate.toISOString(), hoursBefore: 6 }];
    expect(await details(once)).toEqual([told, told]);
  });

  it('two engine processes checking at once fire each rule and market once', async () => {
    // On PostgreSQL a second handle is a second process's pool; PGlite has one connection anyway.
    const second = env.databaseUrl ? await openDatabase({ databaseUrl: env.databaseUrl, maxConnections: 3 }) : env.database;
    try {
      const c = clock(Math.floor(Date.now() / HOUR) * HOUR);
      const a = await env.newAccount();
      const event = await newEvent(3, new Date(c.now() + 2 * HOUR));
      const wl = await watchlistOf(a, event.id);
      const rules = [
        await rule(a, wl, { scope: 'Event', type: 'Closing Soon', params: { hours_before: 6 }, eventId: event.id }),
        await rule(a, wl, { scope: 'Event', type: 'Closing Soon', params: { hours_before: 24 }, eventId: event.id }),
        await rule(a, wl, { scope: 'Watchlist', type: 'Closing Soon', params: { hours_before: 72 } }),
      ];
      const one = createClosingSoonChecker({ database: env.database, logger: silent, now: c.now });
      const two = createClosingSoonChecker({ database: second, logger: silent, now: c.now });
      const [x, y] = await Promise.all([one.checkOnce(), two.checkOnce()]);
      expect(x + y).toBe(9);
      for (const id of rules) expect((await details(id)).map(([market]) => market).sort()).toEqual(event.markets.map((m) => m.id).sort());
      expect(await Promise.all([one.checkOnce(), two.checkOnce()])).toEqual([0, 0]);
    } finally {
      if (second !== env.database) await second.close();
    }
  });

  it('a snoozed rule fires to the inbox only, like a price rule', async () => {
    const c = clock(Math.floor(Date.now() / HOUR) * HOUR);
    const a = await env.newAccount();
    const event = await newEvent(1, new Date(c.now() + 3 * HOUR));
    const wl = await watchlistOf(a, event.id);
    const res = await env.http
      .post('/subscriptions')
      .set(a.auth)
      .send({
        watchlistId: wl,
        subscriptionScope: 'Event',
        eventId: event.id,
        subscriptionTypeConfig: { type: 'Closing Soon', config: { params: { hours_before: 6 } } },
        triggerType: 'Recurring',
        channels: [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: 'http://127.0.0.1:9/hook' } }],
      })
      .expect(201);
    const id = res.body.subscription.subscriptionId as string;
    await env.http.post(`/subscription/${id}/snooze`).set(a.auth).send({ for: '1h' }).expect(200);
    expect(await createClosingSoonChecker({ database: env.database, logger: silent, now: c.now }).checkOnce()).toBe(1);
    const [notice] = await notificationsOf(env, id);
    const sent = await deliveriesOf(env, notice!.id);
    expect(sent.map((d) => [d.channelType, d.status])).toEqual([
      ['In App', 'PENDING'],
      ['Webhook', 'FAILED'],
    ]);
    expect(sent[1]!.lastError).toMatch(/snoozed until/);
  });
});

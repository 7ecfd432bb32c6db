import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookBody } from '../../src/delivery/senders/webhook-body.js';
import { PriceNotification } from '../../src/http/webhook-payloads.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { clock, notificationsOf, seedEvent, startRunner, watchlistWith } from './helpers.js';

// What a window-move rule keeps across a reload (a watchlist or catalog change) and a restart.

const MIN = 60_000;
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

async function moveRule(a: Awaited<ReturnType<TestEnv['newAccount']>>, wl: string, eventId: string, marketId?: string): Promise<string> {
  const res = await env.http.post('/subscriptions').set(a.auth).send({
    watchlistId: wl, subscriptionScope: marketId ? 'Market' : 'Event', eventId, ...(marketId ? { marketId } : {}),
    subscriptionTypeConfig: { type: 'Moves Up By', config: { params: { threshold_percent: 10, window: '1h' } } },
    triggerType: 'Recurring', triggerInterval: '0m', channels: [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: 'http://127.0.0.1:9/hook' } }],
  }).expect(201);
  return res.body.subscription.subscriptionId as string;
}

describe(`engine runner: window moves across reloads and restarts (${engineName})`, () => {
  it('an Event rule measures each market of the event in its own windows', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 2 });
    const wl = await watchlistWith(env, a, [event]);
    const [m1, m2] = event.markets;
    const id = await moveRule(a, wl, event.id);
    const c = clock();
    const runner = startRunner(env, c);
    await runner.start();
    runner.onPrice(m1!.yesTokenId, 0.4, c.now());
    runner.onPrice(m2!.yesTokenId, 0.7, c.now());
    runner.onPrice(m1!.yesTokenId, 0.45, c.advance(10 * MIN)); // up 5 only
    runner.onPrice(m2!.yesTokenId, 0.5, c.advance(MIN)); // a 40 % price on the other market is not m1's window
    runner.onPrice(m2!.yesTokenId, 0.61, c.advance(MIN)); // m2: up 11 from its own lowest
    await runner.idle();
    const rows = await notificationsOf(env, id);
    expect(rows.map((r) => [r.payload.marketId, (r.payload as Record<string, any>).detectionDetails.movePoints])).toEqual([[m2!.id, 11]]);
    await runner.stop();
  });

  it('a reload keeps the window and the holding: the move that fired does not fire again', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const id = await moveRule(a, wl, event.id, m.id);
    const c = clock();
    const runner = startRunner(env, c);
    await runner.start();
    runner.onPrice(m.yesTokenId, 0.4, c.now());
    runner.onPrice(m.yesTokenId, 0.5, c.advance(10 * MIN));
    await runner.idle();
    expect(await notificationsOf(env, id)).toHaveLength(1);

    await runner.reloadSubscriptions([id]);
    runner.onPrice(m.yesTokenId, 0.52, c.advance(MIN));
    await runner.idle();
    expect(await notificationsOf(env, id)).toHaveLength(1);
    // The move ends (an hour on, 52 % is the window's lowest), and a new one from there fires.
    runner.onPrice(m.yesTokenId, 0.53, c.advance(60 * MIN));
    runner.onPrice(m.yesTokenId, 0.63, c.advance(MIN));
    await runner.idle();
    const payloads = (await notificationsOf(env, id)).map((n) => n.payload as Record<string, any>);
    expect(payloads.map((p) => p.detectionDetails.movePoints)).toEqual([10, 11]);
    expect(payloads[1]!.detectionDetails).toMatchObject({ windowStartValue: 0.52, window: '1h' });
    // What a webhook receiver gets is what the OpenAPI document's price_notification describes.
    for (const p of payloads) expect(PriceNotification.safeParse(webhookBody(p, 'http://127.0.0.1:9/hook')).error?.issues).toBeUndefined();
    await runner.stop();
  });

  it('after a restart the windows start at the saved price: the move already reported does not fire again', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const id = await moveRule(a, wl, event.id, m.id);
    const c = clock();
    const first = startRunner(env, c);
    await first.start();
    first.onPrice(m.yesTokenId, 0.4, c.now());
    first.onPrice(m.yesTokenId, 0.5, c.advance(10 * MIN));
    await first.stop();
    expect(await notificationsOf(env, id)).toHaveLength(1);

    const second = startRunner(env, c);
    await second.start();
    second.onPrice(m.yesTokenId, 0.52, c.advance(MIN));
    await second.idle();
    expect(await notificationsOf(env, id)).toHaveLength(1);
    second.onPrice(m.yesTokenId, 0.6, c.advance(MIN)); // 10 above the saved 50 %, within the hour
    await second.idle();
    const payloads = (await notificationsOf(env, id)).map((n) => n.payload as Record<string, any>);
    expect(payloads[1]?.detectionDetails).toMatchObject({ windowStartValue: 0.5, movePoints: 10 });
    await second.stop();
  });
});

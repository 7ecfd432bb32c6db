import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { clock, getSub, notificationsOf, seedEvent, startRunner, subscribe, watchlistWith } from './helpers.js';
import { waitFor } from '../support/wait.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

describe(`engine runner: Recurring pause across restarts (${engineName})`, () => {
  it('a level rule keeps its 30m pause across a restart and fires again after it', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const subId = await subscribe(env, a, wl, {
      scope: 'Market', eventId: event.id, marketId: m.id, type: 'Greater Than', threshold: 70, triggerInterval: '30m',
    });
    const c = clock();
    const first = startRunner(env, c);
    await first.start();
    first.onPrice(m.yesTokenId, 0.8, c.now());
    await first.stop();
    expect(await notificationsOf(env, subId)).toHaveLength(1);

    c.advance(60_000);
    const second = startRunner(env, c);
    await second.start(); // 0.8 is still above 70, but the pause from the last firing holds
    second.onPrice(m.yesTokenId, 0.81, c.now());
    await second.idle();
    expect(await notificationsOf(env, subId)).toHaveLength(1);

    c.advance(30 * 60_000);
    second.onPrice(m.yesTokenId, 0.82, c.now());
    await second.idle();
    expect(await notificationsOf(env, subId)).toHaveLength(2);
    expect((await getSub(env, a, subId)).triggerCount).toBe(2);
    await second.stop();
  });

  it('a subscription that expired no longer fires', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id });
    await env.http.patch(`/subscription/${subId}`).set(a.auth).send({ expiresAt: new Date(Date.now() + 60_000).toISOString() }).expect(200);
    const c = clock(Date.now() + 120_000);
    const runner = startRunner(env, c);
    await runner.start();
    runner.onPrice(m.yesTokenId, 0.5, c.now());
    runner.onPrice(m.yesTokenId, 0.65, c.advance(10));
    await runner.idle();
    expect(await notificationsOf(env, subId)).toHaveLength(0);
    await runner.stop();
  });
});

describe(`engine runner: restart by the user (${engineName})`, () => {
  it('clears the Recurring pause: a level rule that still holds fires again at once', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const subId = await subscribe(env, a, wl, {
      scope: 'Market', eventId: event.id, marketId: m.id, type: 'Less Than', threshold: 30, triggerInterval: '24h',
    });
    const c = clock(Date.now() - 60_000);
    const runner = startRunner(env, c);
    await runner.start();
    runner.onPrice(m.yesTokenId, 0.2, c.now());
    await runner.idle();
    expect(await notificationsOf(env, subId)).toHaveLength(1);

    c.advance(1000);
    await env.http.post(`/subscription/${subId}/restart`).set(a.auth).expect(200);
    await waitFor(async () => { expect(await notificationsOf(env, subId)).toHaveLength(2); return true; });
    expect((await getSub(env, a, subId)).status).toEqual({ enabled: true, reason: 'Triggered' });
    await runner.stop();
  });
});

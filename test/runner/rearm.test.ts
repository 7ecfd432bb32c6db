import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { waitFor } from '../support/wait.js';
import { createEngineRunner } from '../../src/runner/engine-runner.js';
import { clock, notificationsOf, seedEvent, silent, startRunner, subscribe, watchlistWith } from './helpers.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

describe(`engine runner: re-arm bands (${engineName})`, () => {
  it('applies rearmPoints once PUT /subscription/{id}/preferences sets it, keeps the band over a reload, and a restart clears it', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, threshold: 50, triggerInterval: '0m' });
    const c = clock();
    const runner = startRunner(env, c);
    await runner.start();
    const token = m.yesTokenId;
    const count = async () => (await notificationsOf(env, subId)).length;
    const swing = async (...prices: number[]) => {
      for (const p of prices) runner.onPrice(token, p, c.advance(1000));
      await runner.idle();
    };

    await swing(0.49, 0.51, 0.49, 0.51);
    expect(await count()).toBe(2); // no band: every crossing fires

    await env.http.put(`/subscription/${subId}/preferences`).set(a.auth).send({ rearmPoints: 2 }).expect(200);
    // The change feed reloads the rule; until then a swing still fires. Once it has, one swing fires
    // once (the crossing that starts the band) and the next fires nothing.
    await waitFor(async () => {
      const before = await count();
      await swing(0.49, 0.51);
      return (await count()) === before;
    }, { timeoutMs: 10_000, message: 'the band to reach the engine' });
    const quiet = await count();
    await swing(0.49, 0.505, 0.481, 0.5, 0.52, 0.49, 0.51);
    expect(await count()).toBe(quiet);

    await runner.reloadSubscriptions([subId]); // as a watchlist or catalog change would
    await swing(0.49, 0.51);
    expect(await count()).toBe(quiet);

    await swing(0.48, 0.5); // back past 50 − 2: re-armed, and the next crossing fires
    expect(await count()).toBe(quiet + 1);
    const last = (await notificationsOf(env, subId)).at(-1)!;
    expect(last.payload).toMatchObject({ detectedValue: 0.5, detectionDetails: { previousValue: 0.48 } });

    await swing(0.49, 0.51);
    expect(await count()).toBe(quiet + 1);
    await env.http.post(`/subscription/${subId}/pause`).set(a.auth).expect(200);
    await waitFor(() => !runner.tokens().includes(token));
    await env.http.post(`/subscription/${subId}/restart`).set(a.auth).expect(200);
    await waitFor(() => runner.tokens().includes(token));
    await swing(0.51, 0.49, 0.51); // the token's reference came back with the restart; 0.51 → 0.49 → 0.51 crosses again
    expect(await count()).toBe(quiet + 2);
    await runner.stop();
  });

  it('a band not passed yet survives an engine restart, and so does a band that was passed', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, type: 'Crossing', threshold: 50, triggerInterval: '0m' });
    await env.http.put(`/subscription/${subId}/preferences`).set(a.auth).send({ rearmPoints: 2 }).expect(200);
    const c = clock();
    const count = async () => (await notificationsOf(env, subId)).length;
    const run = async (...prices: number[]) => {
      const runner = startRunner(env, c);
      await runner.start();
      for (const p of prices) runner.onPrice(m.yesTokenId, p, c.advance(1000));
      await runner.stop();
    };

    await run(0.45, 0.51, 0.49);
    expect(await count()).toBe(1);
    await run(0.51, 0.49, 0.505); // restarted inside the band of the upward firing: quiet
    expect(await count()).toBe(1);
    await run(0.47); // past 48: Crossing fires the crossing back, and a band above starts
    expect(await count()).toBe(2);
    await run(0.51, 0.49);
    expect(await count()).toBe(2);
    await run(0.52, 0.5); // past 52: fires upward; then inside that band again
    expect(await count()).toBe(3);
    const last = (await notificationsOf(env, subId)).at(-1)!;
    expect(last.payload).toMatchObject({ detectedValue: 0.52, detectionDetails: { previousValue: 0.49 } });
  });

  it('a Crossing Up band passed before a restart stays passed: the next crossing fires', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, threshold: 50, triggerInterval: '0m' });
    await env.http.put(`/subscription/${subId}/preferences`).set(a.auth).send({ rearmPoints: 2 }).expect(200);
    const c = clock();
    const runner = startRunner(env, c);
    await runner.start();
    for (const p of [0.45, 0.51, 0.47, 0.49]) runner.onPrice(m.yesTokenId, p, c.advance(1000));
    await runner.stop();
    expect(await notificationsOf(env, subId)).toHaveLength(1);

    const second = startRunner(env, c);
    await second.start(); // the saved price 0.49 is inside the band, but the band was passed at 0.47
    second.onPrice(m.yesTokenId, 0.51, c.advance(1000));
    await second.stop();
    expect(await notificationsOf(env, subId)).toHaveLength(2);
  });

  it('an engine taking a token over takes the band the previous owner saved', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, threshold: 50, triggerInterval: '0m' });
    await env.http.put(`/subscription/${subId}/preferences`).set(a.auth).send({ rearmPoints: 2 }).expect(200);
    const c = clock();
    let ownerIsFirst = true;
    const first = createEngineRunner({ database: env.database, logger: silent, now: c.now, flushIntervalMs: 60_000, owns: () => ownerIsFirst });
    const second = createEngineRunner({ database: env.database, logger: silent, now: c.now, flushIntervalMs: 60_000, owns: () => !ownerIsFirst });
    await first.start();
    await second.start(); // loaded before any firing: no band in its memory
    for (const p of [0.45, 0.51]) first.onPrice(m.yesTokenId, p, c.advance(1000));
    await first.stop(); // saves the band with its prices
    expect(await notificationsOf(env, subId)).toHaveLength(1);

    ownerIsFirst = false;
    second.adoptReference(m.yesTokenId, 0.51);
    await second.takeOverBands([m.yesTokenId]);
    for (const p of [0.49, 0.51, 0.49, 0.51]) second.onPrice(m.yesTokenId, p, c.advance(1000));
    await second.idle();
    expect(await notificationsOf(env, subId)).toHaveLength(1);
    for (const p of [0.48, 0.5]) second.onPrice(m.yesTokenId, p, c.advance(1000));
    await second.idle();
    expect(await notificationsOf(env, subId)).toHaveLength(2);
    await second.stop();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineRunner } from '../../src/runner/engine-runner.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { clock, getSub, notificationsOf, seedEvent, startRunner, subscribe, watchlistWith } from './helpers.js';
import { waitFor } from '../support/wait.js';

let env: TestEnv;
const runners: EngineRunner[] = [];
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  for (const r of runners) await r.stop();
  await env?.close();
});

async function started() {
  const c = clock();
  const runner = startRunner(env, c);
  runners.push(runner);
  await runner.start();
  return { runner, c };
}

/** Moves a token 0.5 → 0.65 (across 60) and back, and waits for the firings to be written. */
async function crossUp(runner: EngineRunner, c: ReturnType<typeof clock>, token: string) {
  runner.onPrice(token, 0.5, c.advance(1000));
  runner.onPrice(token, 0.65, c.advance(1000));
  runner.onPrice(token, 0.5, c.advance(1000));
  await runner.idle();
}

describe(`removing an event from a watchlist pauses what aimed at it (${engineName})`, () => {
  it('DELETE …/events/{eventId}: its Event- and Market-scope subscriptions stop firing and show "Paused by user"', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 2 });
    const other = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event, other]);
    const [m0, m1] = event.markets;
    const eventSub = await subscribe(env, a, wl, { scope: 'Event', eventId: event.id, threshold: 60 });
    const marketSub = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m1!.id, threshold: 60 });
    const otherSub = await subscribe(env, a, wl, { scope: 'Market', eventId: other.id, marketId: other.markets[0]!.id, threshold: 60 });
    const { runner, c } = await started();
    expect(runner.tokens()).toEqual(expect.arrayContaining([m0!.yesTokenId, m1!.yesTokenId]));

    await env.http.delete(`/watchlists/${wl}/events/${event.id}`).set(a.auth).expect(200);
    await waitFor(() => { expect(runner.tokens()).not.toContain(m0!.yesTokenId); return true; });
    await waitFor(() => { expect(runner.tokens()).not.toContain(m1!.yesTokenId); return true; });
    await crossUp(runner, c, m0!.yesTokenId);
    await crossUp(runner, c, m1!.yesTokenId);
    await crossUp(runner, c, other.markets[0]!.yesTokenId);

    expect(await notificationsOf(env, eventSub)).toHaveLength(0);
    expect(await notificationsOf(env, marketSub)).toHaveLength(0);
    expect(await notificationsOf(env, otherSub)).toHaveLength(1); // the event left in the watchlist still alerts
    for (const id of [eventSub, marketSub]) {
      expect((await getSub(env, a, id)).status).toEqual({ enabled: false, reason: 'Paused by user' });
    }
    expect((await getSub(env, a, otherSub)).status).toEqual({ enabled: true, reason: 'Triggered' });
    const listed = await env.http.get(`/subscriptions/${wl}`).set(a.auth).expect(200);
    expect(listed.body.subscriptions).toHaveLength(3); // kept, with their history, not deleted
  });

  it('a paused one cannot be restarted until its event is back; then it fires again', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const sub = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, threshold: 60 });
    const { runner, c } = await started();
    await env.http.delete(`/watchlists/${wl}/events/${event.id}`).set(a.auth).expect(200);

    const refused = await env.http.post(`/subscription/${sub}/restart`).set(a.auth).expect(409);
    expect(refused.body.error).toMatch(/no longer in this subscription's watchlist; add it back/);
    expect((await getSub(env, a, sub)).status).toEqual({ enabled: false, reason: 'Paused by user' });

    // Putting the event back does not re-arm on its own: the user pauses and restarts explicitly.
    await env.http.put(`/watchlists/${wl}/events/${event.id}`).set(a.auth).send({ autoFetch: true }).expect(200);
    expect((await getSub(env, a, sub)).status).toEqual({ enabled: false, reason: 'Paused by user' });
    await env.http.post(`/subscription/${sub}/restart`).set(a.auth).expect(200);
    await waitFor(() => { expect(runner.tokens()).toContain(m.yesTokenId); return true; });
    await crossUp(runner, c, m.yesTokenId);
    expect(await notificationsOf(env, sub)).toHaveLength(1);
  });

  it('PUT with fewer markets pauses the Market-scope subscriptions on the dropped markets only', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 2 });
    const wl = await watchlistWith(env, a, [event]);
    const [m0, m1] = event.markets;
    const keptSub = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m0!.id, threshold: 60 });
    const droppedSub = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m1!.id, threshold: 60 });
    const eventSub = await subscribe(env, a, wl, { scope: 'Event', eventId: event.id, threshold: 60 });
    const watchlistSub = await subscribe(env, a, wl, { scope: 'Watchlist', threshold: 60 });
    const { runner, c } = await started();
    const rules = runner.size; // here m0: kept, Event, Watchlist; m1: dropped, Event, Watchlist

    const put = await env.http.put(`/watchlists/${wl}/events/${event.id}`).set(a.auth).send({ autoFetch: true, markets: [m0!.id] }).expect(200);
    expect(put.body.watchList.events[event.id].markets).toEqual([m0!.id]);
    await waitFor(async () => { expect((await getSub(env, a, droppedSub)).status).toEqual({ enabled: false, reason: 'Paused by user' }); return true; });
    // The engine drops the paused rule and the Watchlist-scope pair of m1 (its markets narrowed).
    await waitFor(() => { expect(runner.size).toBe(rules - 2); return true; });
    await crossUp(runner, c, m1!.yesTokenId);
    await crossUp(runner, c, m0!.yesTokenId);

    expect(await notificationsOf(env, droppedSub)).toHaveLength(0);
    expect(await notificationsOf(env, keptSub)).toHaveLength(1);
    // The event stays watched: an Event-scope subscription still covers all of its markets.
    expect(await notificationsOf(env, eventSub)).toHaveLength(2);
    expect((await notificationsOf(env, watchlistSub)).map((n) => (n.payload as { marketId: string }).marketId)).toEqual([m0!.id]);
    for (const id of [keptSub, eventSub, watchlistSub]) expect((await getSub(env, a, id)).status.enabled).toBe(true);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { engineName } from '../support/db.js';
import { movePrice, notificationsOf, savedPrice, seedFromSimulator, simulatorSuite, subscribe, watchlistWith } from './helpers.js';
import { expectNothingFor, waitFor } from '../support/wait.js';

// A newly followed token's reference comes from the stream's subscription snapshot; its book is
// asked for by REST only when no snapshot came within the wait (a stalled or reconnecting feed).

const suite = simulatorSuite();
afterEach(async () => {
  await stall(0);
});

async function stall(seconds: number) {
  const res = await fetch(`${suite.sim.urls.controlUrl}/feed/stall`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seconds }) });
  expect(res.status).toBe(200);
}

const startRole = (bookFallbackMs: number) => suite.startRole({ bookFallbackMs });

describe(`books of newly followed tokens (${engineName}, venue simulator)`, () => {
  it('the stream snapshot sets the reference, and no REST book is asked for, even after the wait', async () => {
    const { env, sim } = suite;
    const [, first, m] = await seedFromSimulator(env.database, sim.sim.state, 3);
    const token = m!.tokenIds[0];
    const waitMs = 1_000;
    const engine = await startRole(waitMs);
    const a = await env.newAccount();
    const wl = await watchlistWith(env, a, [{ id: first!.eventId } as never, { id: m!.eventId } as never]);
    // A first rule opens the market connection: the token below is subscribed on an open one.
    await subscribe(env, a, wl, { eventId: first!.eventId, marketId: first!.id, type: 'Crossing Up', threshold: 50 });
    await waitFor(() => engine.stream.feedState().some((c) => c.open), { message: 'the market connection' });
    await movePrice(sim.urls.controlUrl, m!.id, 0.3);

    const sub = await subscribe(env, a, wl, { eventId: m!.eventId, marketId: m!.id, type: 'Crossing Up', threshold: 50 });
    await waitFor(async () => { expect(await savedPrice(env.database, token)).toBe(0.3); return true; });
    await expectNothingFor(waitMs + 300, () => sim.sim.state.stats.booksTokens.has(token), { message: "a REST request of the token's book" });

    await movePrice(sim.urls.controlUrl, m!.id, 0.6);
    await waitFor(async () => { expect(await notificationsOf(env, sub)).toHaveLength(1); return true; });
    const [n] = await notificationsOf(env, sub);
    expect(n!.payload).toMatchObject({ detectedValue: 0.6, detectionDetails: { previousValue: 0.3 } });
  });

  it('no snapshot (stalled feed): the REST book after the wait sets the reference without firing; the next crossing fires', async () => {
    const { env, sim } = suite;
    const [, , , m] = await seedFromSimulator(env.database, sim.sim.state, 4);
    const token = m!.tokenIds[0];
    const waitMs = 800;
    const engine = await startRole(waitMs);
    const a = await env.newAccount();
    const wl = await watchlistWith(env, a, [{ id: m!.eventId } as never]);
    await movePrice(sim.urls.controlUrl, m!.id, 0.8);
    await stall(60);

    let followedAt = 0;
    engine.runner.on('following', (tokens) => {
      if (tokens.includes(token)) followedAt = Date.now();
    });
    const sub = await subscribe(env, a, wl, { eventId: m!.eventId, marketId: m!.id, type: 'Crossing Up', threshold: 50 });
    await waitFor(() => followedAt > 0, { message: 'the token followed' });
    expect(engine.runner.awaitsReference(token)).toBe(true);
    await waitFor(() => sim.sim.state.stats.booksTokens.has(token), { message: "the REST request of the token's book" });
    expect(Date.now() - followedAt).toBeGreaterThanOrEqual(waitMs);
    await waitFor(async () => { expect(await savedPrice(env.database, token)).toBe(0.8); return true; });
    expect(engine.runner.awaitsReference(token)).toBe(false);
    await engine.runner.idle();
    expect(await notificationsOf(env, sub)).toHaveLength(0);

    await stall(0);
    await movePrice(sim.urls.controlUrl, m!.id, 0.4);
    await waitFor(async () => { expect(await savedPrice(env.database, token)).toBe(0.4); return true; });
    await movePrice(sim.urls.controlUrl, m!.id, 0.6);
    await waitFor(async () => { expect(await notificationsOf(env, sub)).toHaveLength(1); return true; });
    const [n] = await notificationsOf(env, sub);
    expect(n!.payload).toMatchObject({ detectedValue: 0.6, detectionDetails: { previousValue: 0.4 } });
  });
});

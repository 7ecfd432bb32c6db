import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { startEngineRole, type EngineRole } from '../../src/runner/role.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { startSimulator } from '../venue/support.js';
import { movePrice, notificationsOf, savedPrice, seedFromSimulator, silent, subscribe, watchlistWith } from './helpers.js';
import { expectNothingFor, waitFor } from '../support/wait.js';

// A newly followed token's reference comes from the stream's subscription snapshot; its book is
// asked for by REST only when no snapshot came within the wait (a stalled or reconnecting feed).

let env: TestEnv;
let sim: Awaited<ReturnType<typeof startSimulator>>;
let role: EngineRole | undefined;
beforeAll(async () => {
  env = await createTestEnv();
  sim = await startSimulator();
});
afterEach(async () => {
  await role?.stop();
  role = undefined;
  await fetch(`${sim.urls.controlUrl}/feed/stall`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seconds: 0 }) });
});
afterAll(async () => {
  await sim?.sim.stop();
  await env?.close();
});

const stall = async (seconds: number) => {
  const res = await fetch(`${sim.urls.controlUrl}/feed/stall`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seconds }) });
  expect(res.status).toBe(200);
};

async function startRole(bookFallbackMs: number) {
  role = await startEngineRole({
    database: env.database, config: env.config, logger: silent, clobUrl: sim.urls.clobUrl, clobWsUrl: sim.urls.clobWsUrl, bookFallbackMs,
  });
  return role;
}

describe(`books of newly followed tokens (${engineName}, venue simulator)`, () => {
  it('the stream snapshot sets the reference, and no REST book is asked for, even after the wait', async () => {
    const [, m] = await seedFromSimulator(env.database, sim.sim.state, 2);
    const engine = await startRole(200);
    const a = await env.newAccount();
    const wl = await watchlistWith(env, a, [{ id: m!.eventId } as never]);
    await movePrice(sim.urls.controlUrl, m!.id, 0.3);
    const asked = sim.sim.state.stats.booksRequests;

    const sub = await subscribe(env, a, wl, { eventId: m!.eventId, marketId: m!.id, type: 'Crossing Up', threshold: 50 });
    await waitFor(async () => { expect(await savedPrice(env.database, m!.tokenIds[0])).toBe(0.3); return true; });
    await expectNothingFor(600, () => sim.sim.state.stats.booksRequests > asked, { message: 'a REST book request' });

    await movePrice(sim.urls.controlUrl, m!.id, 0.6);
    await waitFor(async () => { expect(await notificationsOf(env, sub)).toHaveLength(1); return true; });
    const [n] = await notificationsOf(env, sub);
    expect(n!.payload).toMatchObject({ detectedValue: 0.6, detectionDetails: { previousValue: 0.3 } });
    expect(engine.runner.awaitsReference(m!.tokenIds[0])).toBe(false);
  });

  it('no snapshot (stalled feed): the REST book after the wait sets the reference without firing; the next crossing fires', async () => {
    const [, , m] = await seedFromSimulator(env.database, sim.sim.state, 3);
    const token = m!.tokenIds[0];
    const waitMs = 800;
    const engine = await startRole(waitMs);
    const a = await env.newAccount();
    const wl = await watchlistWith(env, a, [{ id: m!.eventId } as never]);
    await movePrice(sim.urls.controlUrl, m!.id, 0.8);
    await stall(60);
    const asked = sim.sim.state.stats.booksRequests;

    let followedAt = 0;
    engine.runner.on('following', (tokens) => {
      if (tokens.includes(token)) followedAt = Date.now();
    });
    const sub = await subscribe(env, a, wl, { eventId: m!.eventId, marketId: m!.id, type: 'Crossing Up', threshold: 50 });
    await waitFor(() => followedAt > 0, { message: 'the token followed' });
    expect(engine.runner.awaitsReference(token)).toBe(true);
    await waitFor(() => sim.sim.state.stats.booksRequests > asked, { message: 'the REST book request' });
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

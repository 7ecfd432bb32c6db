import { describe, expect, it } from 'vitest';
import { tokenPrices } from '../../src/db/schema/index.js';
import { engineName } from '../support/db.js';
import {
  clock, movePrice, notificationsOf, savedPrice, seedEvent, seedFromSimulator, simulatorSuite, startRunner, subscribe, watchlistWith,
} from './helpers.js';
import { expectNothingFor, waitFor } from '../support/wait.js';

const suite = simulatorSuite();

describe(`a rule's first comparison is with a price known while it existed (${engineName}, venue simulator)`, () => {
  it('the observed case: watched at 0.26, not followed while it moved to 0.80, a new Crossing Up 50 does not fire; a real crossing then does', async () => {
    const { env, sim } = suite;
    const [market] = await seedFromSimulator(env.database, sim.sim.state, 1);
    const m = market!;
    const token = m.tokenIds[0];
    const { controlUrl } = sim.urls;
    const role = await suite.startRole();
    const a = await env.newAccount();
    const eventId = m.eventId;
    const wl = await watchlistWith(env, a, [{ id: eventId } as never]);

    await movePrice(controlUrl, m.id, 0.26);
    const first = await subscribe(env, a, wl, { eventId, marketId: m.id, type: 'Crossing Up', threshold: 50 });
    await waitFor(async () => { expect(await savedPrice(env.database, token)).toBe(0.26); return true; });

    await env.http.delete(`/subscription/${first}`).set(a.auth).expect((res) => expect(res.status).toBeLessThan(300));
    await waitFor(() => { expect(role.runner.tokens()).not.toContain(token); return true; });
    // Nobody follows the token: its saved price goes, and the move is not seen.
    await waitFor(async () => { expect(await savedPrice(env.database, token)).toBeUndefined(); return true; });
    await movePrice(controlUrl, m.id, 0.8);

    const second = await subscribe(env, a, wl, { eventId, marketId: m.id, type: 'Crossing Up', threshold: 50 });
    await waitFor(() => { expect(role.runner.tokens()).toContain(token); return true; });
    await waitFor(async () => { expect(await savedPrice(env.database, token)).toBe(0.8); return true; });
    await expectNothingFor(300, () => notificationsOf(env, second), { message: 'a notification of the new rule' });
    await role.runner.idle();
    expect(await notificationsOf(env, second)).toHaveLength(0);
    // Which fresh price set the reference (the stream's snapshot, or a REST book when none came in
    // time) is book-fallback.test.ts's subject; here either one must not fire.

    await movePrice(controlUrl, m.id, 0.4);
    await waitFor(async () => { expect(await savedPrice(env.database, token)).toBe(0.4); return true; });
    await movePrice(controlUrl, m.id, 0.6);
    await waitFor(async () => { expect(await notificationsOf(env, second)).toHaveLength(1); return true; });
    const [n] = await notificationsOf(env, second);
    expect(n!.payload).toMatchObject({ detectedValue: 0.6, detectionDetails: { previousValue: 0.4 } });
  });
});

describe(`saved prices of tokens nobody follows (${engineName})`, () => {
  it('are dropped at start, so a rule created while no engine ran compares with the first fresh price', async () => {
    const { env } = suite;
    const event = await seedEvent(env.database, { markets: 1 });
    const token = event.markets[0]!.yesTokenId;
    // Left by a crash, or by a version that kept prices of tokens no longer followed.
    await env.database.db.insert(tokenPrices).values({ tokenId: token, price: 0.26 });
    const c = clock();
    const first = startRunner(env, c);
    await first.start();
    await waitFor(async () => { expect(await savedPrice(env.database, token)).toBeUndefined(); return true; });
    await first.stop();

    const a = await env.newAccount();
    const wl = await watchlistWith(env, a, [event]);
    const sub = await subscribe(env, a, wl, { eventId: event.id, marketId: event.markets[0]!.id, type: 'Crossing Up', threshold: 50 });
    const second = startRunner(env, c);
    await second.start();
    try {
      second.onPrice(token, 0.8, c.now());
      await second.idle();
      expect(await notificationsOf(env, sub)).toHaveLength(0);
      second.onPrice(token, 0.4, c.advance(1000));
      second.onPrice(token, 0.55, c.advance(1000));
      await second.idle();
      expect(await notificationsOf(env, sub)).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });
});

describe(`references when tokens change hands (${engineName})`, () => {
  it('the evaluated price is saved with the firing it caused; an adopted price is a reference, an awaited one is not', async () => {
    const { env } = suite;
    const event = await seedEvent(env.database, { markets: 2 });
    const [m1, m2] = event.markets as [typeof event.markets[0], typeof event.markets[0]];
    const a = await env.newAccount();
    const wl = await watchlistWith(env, a, [event]);
    const s1 = await subscribe(env, a, wl, { eventId: event.id, marketId: m1.id, type: 'Crossing Up', threshold: 50 });
    const s2 = await subscribe(env, a, wl, { eventId: event.id, marketId: m2.id, type: 'Crossing Up', threshold: 50 });
    const c = clock();
    const runner = startRunner(env, c); // prices flushed by the timer only every 60 s
    await runner.start();
    try {
      // Taken over from a gone engine that last evaluated 0.4: the move to 0.6 in the gap fires.
      runner.adoptReference(m1.yesTokenId, 0.4);
      runner.onPrice(m1.yesTokenId, 0.6, c.advance(1000));
      await runner.idle();
      expect(await notificationsOf(env, s1)).toHaveLength(1);
      expect(await savedPrice(env.database, m1.yesTokenId)).toBe(0.6);

      // Taken from a live engine, which evaluated the moves until now: the snapshot only sets the reference.
      runner.onPrice(m2.yesTokenId, 0.4, c.advance(1000));
      runner.awaitReference([m2.yesTokenId]);
      expect(runner.awaitsReference(m2.yesTokenId)).toBe(true);
      runner.onPrice(m2.yesTokenId, 0.6, c.advance(1000));
      await runner.idle();
      expect(await notificationsOf(env, s2)).toHaveLength(0);
      runner.onPrice(m2.yesTokenId, 0.45, c.advance(1000));
      runner.onPrice(m2.yesTokenId, 0.5, c.advance(1000));
      await runner.idle();
      expect(await notificationsOf(env, s2)).toHaveLength(1);
    } finally {
      await runner.stop();
    }
  });
});

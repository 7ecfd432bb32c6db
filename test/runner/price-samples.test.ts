import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceSamples } from '../../src/db/schema/index.js';
import { createEngineRunner } from '../../src/runner/engine-runner.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { clock, savedSamples, seedEvent, silent, startRunner, subscribe, watchlistWith } from './helpers.js';
import { expectNothingFor, waitFor } from '../support/wait.js';
import { sampleDaysFor } from '../support/sample-days.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const samplesOf = (token: string) => savedSamples(env.database, token);

describe(`engine runner: minute price samples (${engineName})`, () => {
  it('records the last price of each minute of a followed token, once the minute ends, and the open minute at stop', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, type: 'Crossing Up', threshold: 90 });
    const start = Date.UTC(2026, 0, 1, 12, 0, 5);
    const c = clock(start);
    const runner = startRunner(env, c);
    await runner.start();
    runner.onPrice(m.yesTokenId, 0.4, c.now());
    runner.onPrice(m.yesTokenId, 0.42, c.advance(20_000));
    runner.onPrice(m.yesTokenId, 0.45, c.advance(20_000));
    // Still inside 12:00: nothing is written for a minute that has not ended.
    await expectNothingFor(300, () => samplesOf(m.yesTokenId), { message: 'a sample written' });
    await runner.idle();
    expect(await samplesOf(m.yesTokenId)).toEqual([]);

    runner.onPrice(m.yesTokenId, 0.5, c.advance(MINUTE)); // 12:01:45 ends 12:00
    await waitFor(async () => { expect(await samplesOf(m.yesTokenId)).toEqual([{ minute: '2026-01-01T12:00:00.000Z', price: 0.45 }]); return true; });

    await runner.stop();
    expect(await samplesOf(m.yesTokenId)).toEqual([
      { minute: '2026-01-01T12:00:00.000Z', price: 0.45 },
      { minute: '2026-01-01T12:01:00.000Z', price: 0.5 },
    ]);
  });

  it('prunes samples older than 7 days and keeps younger ones', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, type: 'Crossing Up', threshold: 90 });
    const now = Date.UTC(2026, 0, 20, 8, 30);
    await sampleDaysFor(env.database.db, 'price_samples', [new Date(now - 8 * DAY), new Date(now - 6 * DAY)]);
    await env.database.db.insert(priceSamples).values([
      { tokenId: 'old-token', minute: new Date(now - 8 * DAY), price: 0.3 },
      { tokenId: 'old-token', minute: new Date(now - 6 * DAY), price: 0.31 },
    ]);
    const c = clock(now);
    const runner = startRunner(env, c);
    await runner.start();
    runner.onPrice(m.yesTokenId, 0.4, c.now());
    await waitFor(async () => { expect(await samplesOf('old-token')).toEqual([{ minute: new Date(now - 6 * DAY).toISOString(), price: 0.31 }]); return true; });
    await runner.stop();
    expect(await samplesOf(m.yesTokenId)).toEqual([{ minute: new Date(now).toISOString(), price: 0.4 }]);
  });

  it('leaves the history of a token it does not own to the engine that owns it', async () => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, type: 'Crossing Up', threshold: 90 });
    const c = clock(Date.UTC(2026, 0, 2, 9, 0));
    const runner = createEngineRunner({ database: env.database, logger: silent, now: c.now, flushIntervalMs: 60_000, owns: (t) => t !== m.yesTokenId });
    await runner.start();
    runner.onPrice(m.yesTokenId, 0.4, c.now());
    runner.onPrice(m.yesTokenId, 0.41, c.advance(MINUTE));
    await expectNothingFor(300, () => samplesOf(m.yesTokenId), { message: 'a sample written' });
    await runner.stop();
    expect(await samplesOf(m.yesTokenId)).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceSamples, tokenPrices } from '../../src/db/schema/index.js';
import { seedEvent } from '../support/catalog.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { sampleDaysFor } from '../support/sample-days.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

const minute = (ago: number) => new Date(Math.floor(Date.now() / 60_000) * 60_000 - ago * 60_000);

describe(`GET /markets/{marketId}/prices (${engineName})`, () => {
  it("answers the engine's per-minute samples within the window, oldest first, and the price now", async () => {
    const event = await seedEvent(env.database, { title: 'Price history', markets: 1 });
    const market = event.markets[0]!;
    await sampleDaysFor(env.database.db, 'price_samples', [minute(90), minute(30), minute(5)]);
    await env.database.db.insert(priceSamples).values([
      { tokenId: market.yesTokenId, minute: minute(90), price: 0.3 },
      { tokenId: market.yesTokenId, minute: minute(30), price: 0.4 },
      { tokenId: market.yesTokenId, minute: minute(5), price: 0.45 },
    ]);
    await env.database.db.insert(tokenPrices).values({ tokenId: market.yesTokenId, price: 0.47 });

    const res = await env.http.get(`/markets/${market.id}/prices?minutes=60`).expect(200);
    expect(res.body).toEqual({
      marketId: market.id,
      question: market.question,
      current: 0.47,
      points: [
        { at: minute(30).toISOString(), price: 0.4 },
        { at: minute(5).toISOString(), price: 0.45 },
      ],
    });
    const day = await env.http.get(`/markets/${market.id}/prices?minutes=1440`).expect(200);
    expect(day.body.points).toHaveLength(3);
  });

  it('without samples it answers the catalog price and no points', async () => {
    const event = await seedEvent(env.database, { title: 'Quiet market', markets: 1 });
    const res = await env.http.get(`/markets/${event.markets[0]!.id}/prices`).expect(200);
    expect(res.body).toMatchObject({ current: expect.any(Number), points: [] });
  });

  it.each([
    ['0', /at least 1/],
    ['10081', /at most 10080/],
    ['abc', /whole number/],
    ['1.5', /whole number/],
  ])('refuses minutes=%s with 400', async (minutes, message) => {
    const event = await seedEvent(env.database, { markets: 1 });
    const res = await env.http.get(`/markets/${event.markets[0]!.id}/prices?minutes=${minutes}`).expect(400);
    expect(res.body).toEqual({ error: expect.stringMatching(message) });
  });

  it('answers 404 for an unknown market', async () => {
    const res = await env.http.get('/markets/nope/prices').expect(404);
    expect(res.body).toEqual({ error: 'Market not found' });
  });
});

describe(`GET /markets/prices (${engineName})`, () => {
  it("answers several markets' prices now in one request: the engine's when it has one, else the catalog's", async () => {
    const event = await seedEvent(env.database, { title: 'Many prices', markets: 2 });
    const [watched, quiet] = event.markets;
    await env.database.db.insert(tokenPrices).values({ tokenId: watched!.yesTokenId, price: 0.61 });
    const res = await env.http.get(`/markets/prices?ids=${watched!.id},${quiet!.id},unknown`).expect(200);
    expect(res.body.prices).toHaveLength(2);
    expect(res.body.prices).toEqual(
      expect.arrayContaining([
        { marketId: watched!.id, question: watched!.question, current: 0.61 },
        { marketId: quiet!.id, question: quiet!.question, current: expect.any(Number) },
      ]),
    );
  });

  it.each([
    ['', /at least one market id/],
    [Array.from({ length: 101 }, (_, i) => `m${i}`).join(','), /at most 100/],
  ])('refuses ids=%s with 400', async (ids, message) => {
    const res = await env.http.get(`/markets/prices?ids=${ids}`).expect(400);
    expect(res.body).toEqual({ error: expect.stringMatching(message) });
  });

  it('refuses a request without ids with 400', async () => {
    const res = await env.http.get('/markets/prices').expect(400);
    expect(res.body.error).toMatch(/ids/);
  });
});

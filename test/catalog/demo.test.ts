import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { demoWebhooks, marketSamples } from '../../src/db/schema/index.js';
import { seedEvent } from '../support/catalog.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { sampleDaysFor } from '../support/sample-days.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

describe(`demo webhooks (${engineName})`, () => {
  it('registers, lists the active ones of the account, and soft-deletes', async () => {
    const a = await env.newAccount();
    const created = await env.http.post('/demo/webhooks').set(a.auth).send({ url: 'http://127.0.0.1:9/hook' }).expect(201);
    expect(created.body).toEqual({ _id: expect.any(String), url: 'http://127.0.0.1:9/hook', active: true, createdAt: expect.any(String) });
    expect(new Date(created.body.createdAt).toISOString()).toBe(created.body.createdAt);

    const list = await env.http.get('/demo/webhooks').set(a.auth).expect(200);
    expect(list.body).toEqual({ webhooks: [created.body] });

    const del = await env.http.delete(`/demo/webhooks/${created.body._id}`).set(a.auth).expect(200);
    expect(del.body).toEqual({ message: expect.any(String) });
    expect((await env.http.get('/demo/webhooks').set(a.auth).expect(200)).body).toEqual({ webhooks: [] });
    const [row] = await env.database.db.select().from(demoWebhooks).where(eq(demoWebhooks.id, created.body._id));
    expect(row).toMatchObject({ active: false, deletedAt: expect.any(Date) });

    // Already deleted: 404.
    await env.http.delete(`/demo/webhooks/${created.body._id}`).set(a.auth).expect(404);
  });

  it("another account's webhook is not found, and not listed", async () => {
    const a = await env.newAccount();
    const b = await env.newAccount();
    const created = await env.http.post('/demo/webhooks').set(a.auth).send({ url: 'http://127.0.0.1:9/a' }).expect(201);
    expect((await env.http.get('/demo/webhooks').set(b.auth).expect(200)).body).toEqual({ webhooks: [] });
    const res = await env.http.delete(`/demo/webhooks/${created.body._id}`).set(b.auth).expect(404);
    expect(res.body).toEqual({ error: expect.any(String) });
    const [row] = await env.database.db
      .select()
      .from(demoWebhooks)
      .where(and(eq(demoWebhooks.id, created.body._id), eq(demoWebhooks.active, true)));
    expect(row).toBeDefined();
  });

  it.each([
    ['a non-URL', { url: 'not a url' }],
    ['a missing url', {}],
    ['a non-http scheme', { url: 'ftp://example.com/x' }],
  ])('answers 400 for %s', async (_name, body) => {
    const a = await env.newAccount();
    const res = await env.http.post('/demo/webhooks').set(a.auth).send(body).expect(400);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it('refuses private addresses unless ALLOW_PRIVATE_URLS is set', async () => {
    const strict = await createTestEnv({ ALLOW_PRIVATE_URLS: 'false' });
    try {
      const a = await strict.newAccount();
      await strict.http.post('/demo/webhooks').set(a.auth).send({ url: 'http://127.0.0.1:9/x' }).expect(400);
    } finally {
      await strict.close();
    }
  });

  it('caps the active demo webhooks of an account (MAX_DEMO_WEBHOOKS); a deleted one frees a slot', async () => {
    const small = await createTestEnv({ MAX_DEMO_WEBHOOKS: '2' });
    try {
      const a = await small.newAccount();
      const b = await small.newAccount();
      // Registered together, as a script would: the cap still holds.
      const tries = await Promise.all(
        [1, 2, 3, 4].map((i) => small.http.post('/demo/webhooks').set(a.auth).send({ url: `http://127.0.0.1:9/h${i}` })),
      );
      expect(tries.map((r) => r.status).sort()).toEqual([201, 201, 403, 403]);
      expect(tries.find((r) => r.status === 403)!.body).toEqual({
        error: 'Demo webhook limit reached: an account may hold 2 active demo webhooks (MAX_DEMO_WEBHOOKS); delete one first',
      });
      const listed = (await small.http.get('/demo/webhooks').set(a.auth).expect(200)).body.webhooks;
      expect(listed).toHaveLength(2);
      await small.http.post('/demo/webhooks').set(b.auth).send({ url: 'http://127.0.0.1:9/b' }).expect(201);

      await small.http.delete(`/demo/webhooks/${listed[0]._id}`).set(a.auth).expect(200);
      await small.http.post('/demo/webhooks').set(a.auth).send({ url: 'http://127.0.0.1:9/again' }).expect(201);
      await small.http.post('/demo/webhooks').set(a.auth).send({ url: 'http://127.0.0.1:9/more' }).expect(403);
    } finally {
      await small.close();
    }
  });

  it('needs a Bearer token', async () => {
    await env.http.get('/demo/webhooks').expect(401);
    await env.http.get('/demo/events').expect(401);
  });
});

describe(`demo events (${engineName})`, () => {
  it('pages through all catalog events with their markets', async () => {
    const a = await env.newAccount();
    const seeded = [];
    for (let i = 0; i < 3; i++) seeded.push(await seedEvent(env.database, { markets: 2, closed: i === 2 }));
    const all = await env.http.get('/demo/events').set(a.auth).expect(200);
    expect(all.body).toMatchObject({ page: 1, limit: 500, totalCount: 3, totalPages: 1 });
    const byId = new Map(all.body.events.map((e: { id: string }) => [e.id, e]));
    expect(byId.get(seeded[2]!.id)).toMatchObject({ closed: true, active: true });
    expect(byId.get(seeded[0]!.id)).toEqual({
      id: seeded[0]!.id,
      title: seeded[0]!.title,
      slug: seeded[0]!.slug,
      active: true,
      closed: false,
      volume: 0,
      startDate: '',
      endDate: '',
      markets: seeded[0]!.markets.map((m) => ({
        id: m.id,
        question: m.question,
        slug: '',
        outcomes: '["Yes","No"]',
        outcomePrices: '["0.5","0.5"]',
        active: true,
        closed: false,
        volume: 0,
      })),
    });

    const p1 = await env.http.get('/demo/events?page=1&limit=2').set(a.auth).expect(200);
    const p2 = await env.http.get('/demo/events?page=2&limit=2').set(a.auth).expect(200);
    expect(p1.body).toMatchObject({ page: 1, limit: 2, totalCount: 3, totalPages: 2 });
    expect(p1.body.events).toHaveLength(2);
    expect(p2.body.events).toHaveLength(1);
    const paged = [...p1.body.events, ...p2.body.events].map((e: { id: string }) => e.id);
    expect(paged).toEqual(all.body.events.map((e: { id: string }) => e.id));
    const beyond = await env.http.get('/demo/events?page=9&limit=2').set(a.auth).expect(200);
    expect(beyond.body.events).toEqual([]);
  });

  it.each(['page=0', 'page=-1', 'page=1.5', 'page=abc', 'limit=0', 'limit=501', 'limit=2.5', 'limit=', 'page=1&page=2'])(
    'answers 400 {error} for %s',
    async (qs) => {
      const a = await env.newAccount();
      const res = await env.http.get(`/demo/events?${qs}`).set(a.auth).expect(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    },
  );
});

describe(`volume stats (${engineName})`, () => {
  it('computes windows from the cumulative samples, and the ratios', async () => {
    const a = await env.newAccount();
    const e = await seedEvent(env.database);
    const id = e.markets[0]!.id;
    const now = Date.now();
    const h = (hours: number) => new Date(now - hours * 3_600_000);
    await sampleDaysFor(env.database.db, 'market_samples', [30, 20, 10, 3, 0.5, 0.1].map(h));
    await env.database.db.insert(marketSamples).values([
      { marketId: id, at: h(30), volume: 100, liquidity: 10 },
      { marketId: id, at: h(20), volume: 400, liquidity: 20 },
      { marketId: id, at: h(10), volume: 700, liquidity: 30 },
      { marketId: id, at: h(3), volume: 850, liquidity: 40 },
      { marketId: id, at: h(0.5), volume: 1000, liquidity: 50 },
      { marketId: id, at: h(0.1), volume: 1100, liquidity: 55 },
    ]);
    const res = await env.http.get(`/demo/markets/${id}/volume-stats`).set(a.auth).expect(200);
    expect(res.body).toEqual({
      marketId: id,
      totalVolume: 1100,
      latestLiquidity: 55,
      windows: {
        '1h': { volume: 100, datapoints: 2, startVolume: 1000, endVolume: 1100 },
        '4h': { volume: 250, datapoints: 3, startVolume: 850, endVolume: 1100 },
        '12h': { volume: 400, datapoints: 4, startVolume: 700, endVolume: 1100 },
        '24h': { volume: 700, datapoints: 5, startVolume: 400, endVolume: 1100 },
      },
      liquidityToVolumeRatio: 55 / 700,
      turnoverRatio: 700 / 55,
      datapoints: 6,
    });
  });

  it('answers nulls and zero windows for a market without samples', async () => {
    const a = await env.newAccount();
    const e = await seedEvent(env.database);
    const res = await env.http.get(`/demo/markets/${e.markets[0]!.id}/volume-stats`).set(a.auth).expect(200);
    const empty = { volume: 0, datapoints: 0, startVolume: null, endVolume: null };
    expect(res.body).toEqual({
      marketId: e.markets[0]!.id,
      totalVolume: null,
      latestLiquidity: null,
      windows: { '1h': empty, '4h': empty, '12h': empty, '24h': empty },
      liquidityToVolumeRatio: null,
      turnoverRatio: null,
      datapoints: 0,
    });
  });

  it('ratios are null when their divisor is zero', async () => {
    const a = await env.newAccount();
    const e = await seedEvent(env.database);
    const id = e.markets[0]!.id;
    const now = Date.now();
    await sampleDaysFor(env.database.db, 'market_samples', [new Date(now - 7_200_000), new Date(now - 3_600_000 * 1.5)]);
    await env.database.db.insert(marketSamples).values([
      { marketId: id, at: new Date(now - 7_200_000), volume: 500, liquidity: 0 },
      { marketId: id, at: new Date(now - 3_600_000 * 1.5), volume: 500, liquidity: 0 },
    ]);
    const res = await env.http.get(`/demo/markets/${id}/volume-stats`).set(a.auth).expect(200);
    expect(res.body).toMatchObject({ totalVolume: 500, latestLiquidity: 0, liquidityToVolumeRatio: null, turnoverRatio: null });
  });

  it('counts the 48 h before the latest sample, and a sample from a clock that ran ahead does not hide the rest', async () => {
    const a = await env.newAccount();
    const e = await seedEvent(env.database);
    const id = e.markets[0]!.id;
    const now = Date.now();
    const h = (hours: number) => new Date(now - hours * 3_600_000);
    await sampleDaysFor(env.database.db, 'market_samples', [60, 40, 1, -10].map(h));
    await env.database.db.insert(marketSamples).values([
      { marketId: id, at: h(60), volume: 50, liquidity: 5 },
      { marketId: id, at: h(40), volume: 100, liquidity: 10 },
      { marketId: id, at: h(1), volume: 200, liquidity: 20 },
      { marketId: id, at: h(-10), volume: 300, liquidity: 30 },
    ]);
    const res = await env.http.get(`/demo/markets/${id}/volume-stats`).set(a.auth).expect(200);
    // 60 h ago is past the retention (its day may still be stored); 40 h ago is within it.
    expect(res.body).toMatchObject({ datapoints: 3, totalVolume: 300 });
  });

  it('answers 404 for an unknown market', async () => {
    const a = await env.newAccount();
    const res = await env.http.get('/demo/markets/nope/volume-stats').set(a.auth).expect(404);
    expect(res.body).toEqual({ error: 'Market not found' });
  });
});

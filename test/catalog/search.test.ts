import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEvents, catalogMarkets, marketSamples } from '../../src/db/schema/index.js';
import { eq } from 'drizzle-orm';
import { seedEvent } from '../support/catalog.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { sampleDaysFor } from '../support/sample-days.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ PUBLIC_URL: 'https://ow.example' });
});
afterAll(() => env?.close());

const phrases = (...terms: [string, boolean?][]) => terms.map(([text, include]) => ({ text, include: include ?? true }));
const ids = (body: { id: string }[]) => body.map((r) => r.id);

describe(`search (${engineName})`, () => {
  it('POST /search finds open events by keyphrase, with the spec result shape and chart links', async () => {
    const e = await seedEvent(env.database, { title: 'Will zorblax win the election?', markets: 2 });
    const res = await env.http.post('/search').send({ keyphrases: phrases(['zorblax']) }).expect(200);
    expect(res.body).toEqual([
      {
        id: e.id,
        title: e.title,
        slug: e.slug,
        image: '',
        type: 'event',
        markets: e.markets.map((m) => ({
          id: m.id,
          image: '',
          question: m.question,
          outcomes: '["Yes","No"]',
          outcomePrices: '["0.5","0.5"]',
          serviceSVGLink: `https://ow.example/markets/${m.id}/chart.svg`,
        })),
      },
    ]);
  });

  it('matches stemmed words and whole phrases', async () => {
    const e = await seedEvent(env.database, { title: 'Quiblet prices rising above 100' });
    const other = await seedEvent(env.database, { title: 'Rising quiblet stock' });
    const stem = await env.http.post('/search').send({ keyphrases: phrases(['quiblet price rises']) }).expect(200);
    expect(ids(stem.body)).toEqual([e.id]);
    const word = await env.http.post('/search').send({ keyphrases: phrases(['quiblet']) }).expect(200);
    expect(ids(word.body).sort()).toEqual([e.id, other.id].sort());
  });

  it('OR takes any included term, AND needs all of them, excluded terms remove events', async () => {
    const a = await seedEvent(env.database, { title: 'Glimmox and frandle summit' });
    const b = await seedEvent(env.database, { title: 'Glimmox election' });
    const c = await seedEvent(env.database, { title: 'Frandle election' });
    const or = await env.http.post('/search').send({ keyphrases: phrases(['glimmox'], ['frandle']), searchMatchOperator: 'OR' });
    expect(ids(or.body).sort()).toEqual([a.id, b.id, c.id].sort());
    const and = await env.http.post('/search').send({ keyphrases: phrases(['glimmox'], ['frandle']), searchMatchOperator: 'AND' });
    expect(ids(and.body)).toEqual([a.id]);
    const excl = await env.http.post('/search').send({ keyphrases: phrases(['glimmox'], ['summit', false]) });
    expect(ids(excl.body)).toEqual([b.id]);
  });

  it('orders by relevance first, then by 24 h volume; limit caps the answer', async () => {
    const both = await seedEvent(env.database, { title: 'Trellux vorp', volume24hr: 1 });
    const low = await seedEvent(env.database, { title: 'Trellux only', volume24hr: 10 });
    const high = await seedEvent(env.database, { title: 'Trellux again', volume24hr: 500 });
    const res = await env.http.post('/search').send({ keyphrases: phrases(['trellux'], ['vorp']) }).expect(200);
    expect(ids(res.body)).toEqual([both.id, high.id, low.id]);
    const limited = await env.http.post('/search?limit=2').send({ keyphrases: phrases(['trellux'], ['vorp']) }).expect(200);
    expect(ids(limited.body)).toEqual([both.id, high.id]);
  });

  it('leaves out closed, inactive and archived events, and closed markets', async () => {
    const open = await seedEvent(env.database, { title: 'Snarvel open', markets: 2 });
    await seedEvent(env.database, { title: 'Snarvel closed', closed: true });
    const inactive = await seedEvent(env.database, { title: 'Snarvel inactive' });
    await env.database.db.update(catalogEvents).set({ active: false }).where(eq(catalogEvents.id, inactive.id));
    const archived = await seedEvent(env.database, { title: 'Snarvel archived' });
    await env.database.db.update(catalogEvents).set({ archived: true }).where(eq(catalogEvents.id, archived.id));
    await env.database.db.update(catalogMarkets).set({ closed: true }).where(eq(catalogMarkets.id, open.markets[1]!.id));
    const res = await env.http.post('/search').send({ keyphrases: phrases(['snarvel']) }).expect(200);
    expect(ids(res.body)).toEqual([open.id]);
    expect(res.body[0].markets.map((m: { id: string }) => m.id)).toEqual([open.markets[0]!.id]);
  });

  it('POST /search/tag-slugs matches tag slugs with OR, AND and exclusions', async () => {
    const a = await seedEvent(env.database, { tags: ['zz-politics', 'zz-usa'] });
    const b = await seedEvent(env.database, { tags: ['zz-politics'] });
    const c = await seedEvent(env.database, { tags: ['zz-usa', 'zz-sports'] });
    const post = (body: object) => env.http.post('/search/tag-slugs').send(body).expect(200);
    expect(ids((await post({ tags: phrases(['zz-politics'], ['zz-usa']), searchMatchOperator: 'OR' })).body).sort()).toEqual(
      [a.id, b.id, c.id].sort(),
    );
    expect(ids((await post({ tags: phrases(['zz-politics'], ['zz-usa']), searchMatchOperator: 'AND' })).body)).toEqual([a.id]);
    expect(ids((await post({ tags: phrases(['zz-usa'], ['zz-sports', false]) })).body)).toEqual([a.id]);
    // Both tags match: ranked above the events matching one.
    expect(ids((await post({ tags: phrases(['zz-politics'], ['zz-usa']) })).body)[0]).toBe(a.id);
  });

  it('POST /search/tag-slugs ignores case, as watchlist tags do: "Politics" finds what "politics" finds', async () => {
    const a = await seedEvent(env.database, { tags: ['zz-civics', 'zz-vote'] });
    const b = await seedEvent(env.database, { tags: ['zz-civics'] });
    // A slug the venue sent with capitals is found by any case too.
    const c = await seedEvent(env.database, { tags: ['ZZ-Mixed'] });
    const post = async (body: object) => ids((await env.http.post('/search/tag-slugs').send(body).expect(200)).body).sort();
    const lower = await post({ tags: phrases(['zz-civics']) });
    expect(lower).toEqual([a.id, b.id].sort());
    expect(await post({ tags: phrases(['ZZ-Civics']) })).toEqual(lower);
    expect(await post({ tags: phrases(['ZZ-CIVICS'], ['Zz-Vote', false]) })).toEqual([b.id]);
    expect(await post({ tags: phrases(['zz-civics'], ['ZZ-VOTE']), searchMatchOperator: 'AND' })).toEqual([a.id]);
    expect(await post({ tags: phrases(['zz-mixed']) })).toEqual([c.id]);
  });

  it.each([
    ['no included term', { keyphrases: phrases(['x', false]) }],
    ['an empty list', { keyphrases: [] }],
    ['an unknown operator', { keyphrases: phrases(['x']), searchMatchOperator: 'XOR' }],
    ['a missing body field', {}],
  ])('answers 400 {error} for %s', async (_name, body) => {
    const res = await env.http.post('/search').send(body).expect(400);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it.each(['0', '201', 'abc', '1.5'])('answers 400 for limit=%s', async (limit) => {
    await env.http.post(`/search?limit=${limit}`).send({ keyphrases: phrases(['x']) }).expect(400);
  });

  it('a keyphrase of stop words only matches nothing', async () => {
    await seedEvent(env.database, { title: 'The of and' });
    await env.http.post('/search').send({ keyphrases: phrases(['the']) }).expect(200, []);
  });

  it('appears in the OpenAPI document as public endpoints', async () => {
    const doc = (await env.http.get('/openapi.json').expect(200)).body;
    expect(doc.paths['/search'].post.security).toEqual([]);
    expect(doc.paths['/search/tag-slugs'].post).toBeDefined();
    expect(doc.paths['/markets/{marketId}/chart.svg'].get).toBeDefined();
  });

  it('needs no Authorization header', async () => {
    await env.http.post('/search/tag-slugs').send({ tags: phrases(['nothing-here']) }).expect(200, []);
  });
});

describe(`market chart (${engineName})`, () => {
  it('GET /markets/{id}/chart.svg draws the last 24 h of sampled prices', async () => {
    const e = await seedEvent(env.database);
    const id = e.markets[0]!.id;
    const now = Date.now();
    await sampleDaysFor(env.database.db, 'market_samples', [30, 2, 1].map((h) => new Date(now - h * 3_600_000)));
    await env.database.db.insert(marketSamples).values([
      { marketId: id, at: new Date(now - 30 * 3_600_000), price: 0.9 },
      { marketId: id, at: new Date(now - 2 * 3_600_000), price: 0.25 },
      { marketId: id, at: new Date(now - 3_600_000), price: 0.75 },
    ]);
    const res = await env.http.get(`/markets/${id}/chart.svg`).expect(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    const svg = res.text ?? res.body.toString();
    const points = /points="([^"]+)"/.exec(svg)![1]!.split(' ');
    expect(points).toHaveLength(2);
    expect(points.map((p) => Number(p.split(',')[1]))).toEqual([30, 10]);
  });

  it('draws a flat line from the catalog price when there are no samples', async () => {
    const e = await seedEvent(env.database);
    const res = await env.http.get(`/markets/${e.markets[0]!.id}/chart.svg`).expect(200);
    expect(String(res.text ?? res.body)).toContain('<polyline');
  });

  it('answers 404 {error} for an unknown market', async () => {
    const res = await env.http.get('/markets/no-such-market/chart.svg').expect(404);
    expect(res.body).toEqual({ error: 'Market not found' });
  });
});

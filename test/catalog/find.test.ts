import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEvents, catalogMarkets } from '../../src/db/schema/index.js';
import { createLogger } from '../../src/logger.js';
import { findMarkets, queryWords } from '../../src/services/search/index.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';

let env: TestEnv;
let btcAugust: SeededEvent;
let btcJune: SeededEvent;
let zorblax: SeededEvent;
beforeAll(async () => {
  env = await createTestEnv();
  // Titles as the simulator draws them (src/simulator/templates.ts); seeded questions repeat the title.
  btcAugust = await seedEvent(env.database, { title: 'Will Bitcoin reach $100k by August 31, 2026?', volume24hr: 500 });
  btcJune = await seedEvent(env.database, { title: 'Will Bitcoin reach $90k by June 30, 2026?', volume24hr: 9000 });
  zorblax = await seedEvent(env.database, { title: 'Zorblax mayor race', markets: 2, volume24hr: 10 });
});
afterAll(() => env?.close());
const logger = createLogger('silent');
let ctx: { database: TestEnv['database']; config: TestEnv['config']; logger: typeof logger };
beforeAll(() => {
  ctx = { database: env.database, config: env.config, logger };
});

const find = async (q: string, limit?: number) => {
  const res = await env.http.get('/catalog/search').query(limit === undefined ? { q } : { q, limit }).expect(200);
  return (res.body as { id: string }[]).map((e) => e.id);
};

describe(`people-search, GET /catalog/search (${engineName})`, () => {
  it('finds by words in any order, case-insensitive: "bitcoin august", "august BITCOIN", "Bitcoin 100k"', async () => {
    expect(await find('bitcoin august')).toEqual([btcAugust.id]);
    expect(await find('august BITCOIN')).toEqual([btcAugust.id]);
    expect(await find('Bitcoin 100k')).toEqual([btcAugust.id]);
    expect(await find('$100k bitcoin')).toEqual([btcAugust.id]);
  });

  it('finds by word prefixes ("bitc", "zorb"), ranked by 24 h volume among equal matches', async () => {
    expect(await find('bitc')).toEqual([btcJune.id, btcAugust.id]);
    expect(await find('zorb')).toEqual([zorblax.id]);
    expect(await find('zorb ma')).toEqual([zorblax.id]);
  });

  it('answers in the spec result shape, with the open markets of each event', async () => {
    const res = await env.http.get('/catalog/search').query({ q: 'zorblax' }).expect(200);
    expect(res.body).toEqual([
      expect.objectContaining({ id: zorblax.id, title: 'Zorblax mayor race', type: 'event', markets: zorblax.markets.map((m) => expect.objectContaining({ id: m.id, question: m.question })) }),
    ]);
  });

  it('tolerates a one-letter typo, and ranks an exact match above a near miss', async () => {
    expect(await find('bitcoim august')).toEqual([btcAugust.id]);
    expect(await find('zorblex')).toEqual([zorblax.id]);
    const near = await seedEvent(env.database, { title: 'Glorbin summit', volume24hr: 1_000_000 });
    const exact = await seedEvent(env.database, { title: 'Glorbix summit', volume24hr: 1 });
    expect(await find('glorbix')).toEqual([exact.id, near.id]);
  });

  it('ranks a word start above the same letters inside a word, whatever the volume', async () => {
    const inside = await seedEvent(env.database, { title: 'Quendrapix final', volume24hr: 1_000_000 });
    const start = await seedEvent(env.database, { title: 'Drapix final', volume24hr: 1 });
    expect(await find('drapix')).toEqual([start.id, inside.id]);
  });

  it('leaves out closed events and closed markets', async () => {
    const closed = await seedEvent(env.database, { title: 'Frumbleton referendum', closed: true });
    const open = await seedEvent(env.database, { title: 'Frumbleton election', markets: 2 });
    await env.database.db.update(catalogMarkets).set({ closed: true }).where(eq(catalogMarkets.id, open.markets[0]!.id));
    expect(await find('frumbleton')).toEqual([open.id]);
    const markets = await findMarkets({ ctx, input: { q: 'frumbleton' } });
    expect(markets.map((m) => m.id)).toEqual([open.markets[1]!.id]);
    expect(closed.id).not.toBe(open.id);
  });

  it('follows closings and reopenings: the text indexes hold the open rows only, typos included', async () => {
    const e = await seedEvent(env.database, { title: 'Glimbertown mayor', markets: 2 });
    expect(await find('glimbertown')).toEqual([e.id]);
    await env.database.db.update(catalogEvents).set({ closed: true }).where(eq(catalogEvents.id, e.id));
    expect(await find('glimbertown')).toEqual([]);
    expect(await find('glimbertowm')).toEqual([]);
    await env.database.db.update(catalogEvents).set({ closed: false }).where(eq(catalogEvents.id, e.id));
    expect(await find('glimbertowm')).toEqual([e.id]);
    await env.database.db.update(catalogMarkets).set({ closed: true }).where(eq(catalogMarkets.eventId, e.id));
    expect(await find('glimbertown')).toEqual([]);
  });

  it('finds markets by their question or their event title, ranked by match then 24 h volume', async () => {
    const e = await seedEvent(env.database, { title: 'Snorvik cup winner', markets: 3 });
    for (const [i, volume24hr] of [[0, 5], [1, 50], [2, 0]] as const) {
      await env.database.db.update(catalogMarkets).set({ volume24hr }).where(eq(catalogMarkets.id, e.markets[i]!.id));
    }
    const found = await findMarkets({ ctx, input: { q: 'snorv cup', limit: 25 } });
    expect(found.map((m) => m.id)).toEqual([e.markets[1]!.id, e.markets[0]!.id, e.markets[2]!.id]);
    expect(found[0]).toEqual({
      id: e.markets[1]!.id,
      question: e.markets[1]!.question,
      eventId: e.id,
      eventTitle: 'Snorvik cup winner',
      outcomes: ['Yes', 'No'],
      outcomePrices: [0.5, 0.5],
      volume24hr: 50,
      endDate: null, // the seeded rows carry no end date (autocomplete labels show it when there is one)
    });
    expect((await findMarkets({ ctx, input: { q: 'snorvik', limit: 2 } })).length).toBe(2);
  });

  it('needs every word: an unknown word finds nothing', async () => {
    expect(await find('bitcoin zzqxv')).toEqual([]);
    expect(await find('nothingmatcheszzz')).toEqual([]);
  });

  it('answers 400 with a readable error for bad input, never a 500', async () => {
    const bad = async (query: Record<string, unknown> | string) => {
      const res = await env.http.get('/catalog/search').query(query).expect(400);
      expect(res.body).toEqual({ error: expect.any(String) });
      return res.body.error as string;
    };
    expect(await bad({})).toMatch(/^q: /);
    expect(await bad({ q: '   ' })).toMatch(/^q: /);
    expect(await bad({ q: '?!%_' })).toBe('q: type at least one letter or digit');
    expect(await bad({ q: 'x'.repeat(201) })).toMatch(/^q: /);
    expect(await bad({ q: 'bitcoin', limit: '0' })).toMatch(/^limit: /);
    expect(await bad({ q: 'bitcoin', limit: 'ten' })).toMatch(/^limit: /);
    expect(await bad('q=a&q=b')).toMatch(/^q: /);
    expect(await bad({ q: 'nul\u0000byte' })).toMatch(/^q: /);
  });

  it('splits a query into lowercase words at anything that is not a letter or digit', () => {
    expect(queryWords('  Bitcoin $100k, AUGUST  bitcoin ')).toEqual(['bitcoin', '100k', 'august']);
    expect(queryWords('Zorblax-mayor % _')).toEqual(['zorblax', 'mayor']);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchAnswerCache } from '../../src/services/search/answer-cache.js';
import type { SearchResult } from '../../src/services/search/results.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { waitFor } from '../support/wait.js';
import { postJson, startSimulatorWithSync } from '../venue/support.js';

type Started = Awaited<ReturnType<typeof startSimulatorWithSync>>;

let env: TestEnv;
let s: Started;
let sync: Started['sync'];

beforeAll(async () => {
  env = await createTestEnv();
  s = await startSimulatorWithSync(env.database, { eventCount: 10 });
  sync = s.sync;
  await sync();
});
afterAll(async () => {
  await s?.sim.stop();
  await env?.close();
});

const search = async (text: string) => (await env.http.post('/search').send({ keyphrases: [{ text }] }).expect(200)).body as SearchResult[];

describe(`public search answers follow the catalog sync (${engineName})`, () => {
  it('an event the sync opens, reprices or closes shows in the next searches, though the same search was answered before', async () => {
    expect(await search('quorvex')).toEqual([]);
    expect(await search('quorvex')).toEqual([]);
    const added = (await postJson(`${s.urls.controlUrl}/events`, { title: 'Will quorvex ship this year?', markets: [{ question: 'Quorvex ships?', price: 0.3 }] }))
      .json.event as { id: string; markets: { id: string }[] };
    await sync();
    const found = await waitFor(async () => {
      const r = await search('quorvex');
      return r.length === 1 && r;
    }, { message: 'the new event in the search' });
    expect(found[0]!.id).toBe(added.id);
    const before = found[0]!.markets[0]!.outcomePrices;

    await postJson(`${s.urls.controlUrl}/markets/${added.markets[0]!.id}/price`, { price: 0.8 });
    await sync();
    const repriced = await waitFor(async () => {
      const r = await search('quorvex');
      return r[0]?.markets[0]?.outcomePrices !== before && r;
    }, { message: 'the new price in the search' });
    expect(JSON.parse(repriced[0]!.markets[0]!.outcomePrices)[0]).toBe('0.8');

    await postJson(`${s.urls.controlUrl}/events/${added.id}/close`, {});
    await sync();
    await waitFor(async () => (await search('quorvex')).length === 0, { message: 'the closed event gone from the search' });
  });
});

const result = (id: string) => ({ id, title: id, slug: id, image: '', type: 'event', markets: [] }) as SearchResult;

describe('SearchAnswerCache', () => {
  it('answers a repeated request from memory, and reads again after a catalog change', async () => {
    const cache = new SearchAnswerCache();
    let reads = 0;
    const read = async () => [result(`e${++reads}`)];
    expect(await cache.answer('k', read)).toEqual([result('e1')]);
    expect(await cache.answer('k', read)).toEqual([result('e1')]);
    expect(reads).toBe(1);
    cache.forgetAll();
    expect(await cache.answer('k', read)).toEqual([result('e2')]);
  });

  it('shares one read among concurrent misses of one request', async () => {
    const cache = new SearchAnswerCache();
    let reads = 0;
    const read = async () => [result(`e${++reads}`)];
    const answers = await Promise.all([cache.answer('k', read), cache.answer('k', read), cache.answer('k', read)]);
    expect(answers).toEqual([[result('e1')], [result('e1')], [result('e1')]]);
    expect(reads).toBe(1);
  });

  it('does not keep a read that was running when the catalog changed, nor let later requests join it', async () => {
    const cache = new SearchAnswerCache();
    let release!: () => void;
    const slow = cache.answer('k', () => new Promise<SearchResult[]>((resolve) => (release = () => resolve([result('old')]))));
    cache.forgetAll();
    const fresh = cache.answer('k', async () => [result('new')]);
    release();
    expect(await slow).toEqual([result('old')]);
    expect(await fresh).toEqual([result('new')]);
    expect(await cache.answer('k', async () => [result('other')])).toEqual([result('new')]);
  });

  it('does not keep a failed read', async () => {
    const cache = new SearchAnswerCache();
    await expect(cache.answer('k', () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
    expect(await cache.answer('k', async () => [result('e')])).toEqual([result('e')]);
  });

  it('reads again an answer older than 10 s (a notice lost on a reconnect)', async () => {
    let now = 0;
    const cache = new SearchAnswerCache(() => now);
    await cache.answer('k', async () => [result('old')]);
    now = 10_000;
    expect(await cache.answer('k', async () => [result('new')])).toEqual([result('old')]);
    now = 10_001;
    expect(await cache.answer('k', async () => [result('new')])).toEqual([result('new')]);
  });

  it('holds at most 1,000 answers and 10,000 result events, the oldest going first', async () => {
    const cache = new SearchAnswerCache();
    for (let i = 0; i < 1_500; i++) await cache.answer(`k${i}`, async () => [result(`e${i}`)]);
    expect(cache.size).toBe(1_000);
    expect(await cache.answer('k1499', async () => [result('again')])).toEqual([result('e1499')]);
    expect(await cache.answer('k0', async () => [result('again')])).toEqual([result('again')]);
    const big = Array.from({ length: 200 }, (_, i) => result(`b${i}`));
    for (let i = 0; i < 60; i++) await cache.answer(`big${i}`, async () => big);
    expect(cache.size).toBeLessThanOrEqual(50);
    expect(await cache.answer('big59', async () => [])).toHaveLength(200);
  });
});

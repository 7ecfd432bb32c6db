import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import { syncCatalogOnce } from '../../src/catalog/index.js';
import { catalogChanges, catalogEvents, catalogMarkets, marketSamples } from '../../src/db/schema/index.js';
import type { ServiceContext } from '../../src/services/context.js';
import { getVolumeStats } from '../../src/services/demo/volume-stats.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { silent } from '../venue/support.js';
import { event, fakeGamma, market } from './scripted-venue.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

describe(`catalog sync confirmations (${engineName})`, () => {
  it('an unconfirmed disappearance is not a closing; the confirmed one is recorded once', async () => {
    const { venue, gamma } = fakeGamma();
    const sync = () => syncCatalogOnce({ database: env.database, gamma, logger: silent });
    venue.open = [event('e1', [market('m1')]), event('e2', [market('m2'), market('m3')])];
    await sync();

    // e1 leaves the open catalog, but the venue cannot be asked.
    venue.open = [event('e2', [market('m2'), market('m3')])];
    venue.getEvent = async () => {
      throw new Error('venue down');
    };
    venue.getMarket = async () => {
      throw new Error('venue down');
    };
    const failed = await sync();
    expect(failed.changes).toEqual({ new_event: 0, new_market: 0, closed_market: 0, closed_event: 0, resolution: 0 });
    const [e1] = await env.database.db.select().from(catalogEvents).where(eq(catalogEvents.id, 'e1'));
    expect(e1!.closed).toBe(false);

    // Still open at the venue (only missing from a page): nothing either.
    venue.getEvent = async (id) => event(id, [market('m1')]);
    venue.getMarket = async (id) => market(id);
    expect((await sync()).changes.closed_event).toBe(0);

    venue.getEvent = async (id) => event(id, [market('m1', { closed: true })], { closed: true });
    const closed = await sync();
    expect(closed.changes).toEqual({ new_event: 0, new_market: 0, closed_market: 1, closed_event: 1, resolution: 0 });
    expect((await sync()).changes).toEqual({ new_event: 0, new_market: 0, closed_market: 0, closed_event: 0, resolution: 0 });

    // A market closed inside an open event needs no extra call; a market gone with 404 is closed too.
    venue.open = [event('e2', [market('m2', { closed: true })])];
    venue.getMarket = async () => null;
    const markets = await sync();
    expect(markets.changes).toEqual({ new_event: 0, new_market: 0, closed_market: 2, closed_event: 0, resolution: 0 });
    const rows = await env.database.db.select().from(catalogChanges).orderBy(asc(catalogChanges.id));
    expect(rows.map((r) => [r.kind, r.eventId, r.marketId])).toEqual([
      ['closed_market', 'e1', 'm1'],
      ['closed_event', 'e1', null],
      ['closed_market', 'e2', 'm2'],
      ['closed_market', 'e2', 'm3'],
    ]);
  });

  it('refreshes every stored field from the venue on each pass', async () => {
    const { venue, gamma } = fakeGamma();
    const sync = () => syncCatalogOnce({ database: env.database, gamma, logger: silent });
    venue.open = [event('u1', [market('u1m')])];
    await sync();
    venue.open = [
      event('u1', [market('u1m', { question: 'New?', volume: 900, volume24hr: 90, liquidity: 9, outcomePrices: [0.7, 0.3], bestBid: 0.69 })], {
        title: 'Renamed',
        volume24hr: 77,
        negRisk: true,
        startDate: '2026-01-01T00:00:00Z',
      }),
    ];
    await sync();
    const [e] = await env.database.db.select().from(catalogEvents).where(eq(catalogEvents.id, 'u1'));
    expect(e).toMatchObject({ title: 'Renamed', volume24hr: 77, negRisk: true, startDate: new Date('2026-01-01T00:00:00Z') });
    const [m] = await env.database.db.select().from(catalogMarkets).where(eq(catalogMarkets.id, 'u1m'));
    expect(m).toMatchObject({ question: 'New?', volume: 900, volume24hr: 90, liquidity: 9, outcomePrices: [0.7, 0.3], bestBid: 0.69 });
  });

  it('keeps 48 h of samples per market, then drops them a whole day at a time', async () => {
    const { venue, gamma } = fakeGamma();
    venue.open = [event('s1', [market('s1m')])];
    const at = (ms: number) => syncCatalogOnce({ database: env.database, gamma, logger: silent, now: () => new Date(ms) });
    const hour = 3_600_000;
    const t0 = Date.UTC(2026, 0, 1);
    const stored = async () =>
      (await env.database.db.select().from(marketSamples).where(eq(marketSamples.marketId, 's1m'))).map((r) => r.at.getTime()).sort();
    const seen = async (nowMs: number) => (await getVolumeStats({ ctx: { database: env.database } as ServiceContext, input: { marketId: 's1m' }, now: new Date(nowMs) })).datapoints;
    await at(t0);
    await at(t0 + 47 * hour);
    expect(await stored()).toEqual([t0, t0 + 47 * hour]);
    await at(t0 + 49 * hour);
    // Past 48 h the first sample is no longer shown; its day (1 January) is not wholly past yet.
    expect(await seen(t0 + 49 * hour)).toBe(2);
    expect(await stored()).toEqual([t0, t0 + 47 * hour, t0 + 49 * hour]);
    // 4 January 00:00: all of 1 January is older than 48 h, and its partition goes.
    await at(t0 + 72 * hour);
    expect(await stored()).toEqual([t0 + 47 * hour, t0 + 49 * hour, t0 + 72 * hour]);
    expect(await seen(t0 + 72 * hour)).toBe(3);
  });
});

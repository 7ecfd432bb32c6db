import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, asc, eq, like, sql } from 'drizzle-orm';
import { syncCatalogOnce } from '../../src/catalog/index.js';
import { catalogEvents, catalogMarkets, marketSamples, watchlistMarkets } from '../../src/db/schema/index.js';
import { createWatchlist } from '../../src/services/watchlists/index.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { silent } from '../venue/support.js';
import { changeLog, failingWrites, installFailingWrites } from './failing-writes.js';
import { event, fakeGamma, market } from './scripted-venue.js';
import { sampleDaysFor } from '../support/sample-days.js';

// What the change transaction leaves behind on its own, with the refresh after it made to fail
// (every sample insert fails: only the refresh batches write samples). The engine builds a notice
// from the stored rows within seconds of the change's commit, once.

let env: TestEnv;
let clock = Date.parse('2026-03-01T00:00:00.000Z');
const { venue, gamma } = fakeGamma();
const sync = () => syncCatalogOnce({ database: env.database, gamma, logger: silent, now: () => new Date((clock += 60_000)) });
const withoutRefresh = (fn: () => Promise<void>) => failingWrites(env.database, 'market_samples', 'insert', 'true', fn);
const syncWithoutRefresh = () => withoutRefresh(async () => void (await expect(sync()).rejects.toThrow()));

beforeAll(async () => {
  env = await createTestEnv();
  await installFailingWrites(env.database);
});
afterAll(() => env?.close());

const newChanges = changeLog(() => env.database);
const marketOf = async (id: string) => (await env.database.db.select().from(catalogMarkets).where(eq(catalogMarkets.id, id)))[0]!;
const eventOf = async (id: string) => (await env.database.db.select().from(catalogEvents).where(eq(catalogEvents.id, id)))[0]!;

describe(`catalog sync: the rows a change names, in its transaction (${engineName})`, () => {
  it('a resolution and a closing carry the final prices, question and event title even when the refresh fails', async () => {
    venue.open = [event('r1', [market('r1x'), market('r1y'), market('r1z')]), event('r2', [market('r2x')])];
    await sync();
    await newChanges();

    venue.open = [
      event('r1', [
        market('r1x', { closed: true, umaResolutionStatus: 'resolved', outcomePrices: [1, 0], question: 'Final r1x?' }),
        market('r1y', { closed: true, outcomePrices: [0.03, 0.97] }),
        market('r1z', { outcomePrices: [0.55, 0.45] }),
      ], { title: 'R1 decided' }),
      event('r2', [market('r2x', { outcomePrices: [0.9, 0.1] })], { title: 'R2 renamed' }),
    ];
    await syncWithoutRefresh();
    expect(await newChanges()).toEqual([
      ['resolution', 'r1', 'r1x'],
      ['closed_market', 'r1', 'r1x'],
      ['closed_market', 'r1', 'r1y'],
    ]);
    // What the notices are built from: the resolved and closing markets, and their event.
    expect(await marketOf('r1x')).toMatchObject({ outcomePrices: [1, 0], question: 'Final r1x?', resolvedOutcome: 'Yes', closed: true });
    expect(await marketOf('r1y')).toMatchObject({ outcomePrices: [0.03, 0.97], closed: true });
    expect((await eventOf('r1')).title).toBe('R1 decided');
    // The size follows the changes: rows no change names wait for the refresh.
    expect((await marketOf('r1z')).outcomePrices).toEqual([0.4, 0.6]);
    expect((await eventOf('r2')).title).toBe('Event r2');

    await sync();
    expect(await newChanges()).toEqual([]);
    expect((await marketOf('r1z')).outcomePrices).toEqual([0.55, 0.45]);
    expect((await eventOf('r2')).title).toBe('R2 renamed');
  });

  it('a market moved into a new event is taken in with it by a watchlist that adds matching events', async () => {
    const a = await env.newAccount();
    const auto = await createWatchlist({ ctx: a.ctx, input: { name: 'auto', automaticallyAddMatchingEvents: true, query: { keyphrases: [{ text: 'quuxly' }] } } });
    venue.open = [event('m1', [market('m1x'), market('m1y')])];
    await sync();
    await newChanges();

    venue.open = [event('m1', [market('m1y')]), event('m2', [market('m2x'), market('m1x')], { title: 'Quuxly election' })];
    await syncWithoutRefresh();
    expect(await newChanges()).toEqual([
      ['new_event', 'm2', null],
      ['new_market', 'm2', 'm2x'],
    ]);
    expect(await marketOf('m1x')).toMatchObject({ eventId: 'm2', position: 1 });
    const held = await env.database.db
      .select({ id: watchlistMarkets.marketId })
      .from(watchlistMarkets)
      .where(and(eq(watchlistMarkets.watchlistId, auto.id), eq(watchlistMarkets.eventId, 'm2')))
      .orderBy(asc(watchlistMarkets.position));
    expect(held.map((m) => m.id)).toEqual(['m2x', 'm1x']);
  });

  it('a market that moves and resolves in one pass is resolved and closed under its new event', async () => {
    venue.open = [event('v1', [market('v1x'), market('v1y')]), event('v2', [market('v2x')])];
    await sync();
    await newChanges();

    venue.open = [event('v1', [market('v1y')]), event('v2', [market('v2x'), market('v1x', { closed: true, umaResolutionStatus: 'resolved', outcomePrices: [0, 1] })])];
    await syncWithoutRefresh();
    expect(await newChanges()).toEqual([
      ['resolution', 'v2', 'v1x'],
      ['closed_market', 'v2', 'v1x'],
    ]);
    // The engine finds the resolved market in the event the change names.
    expect(await marketOf('v1x')).toMatchObject({ eventId: 'v2', outcomePrices: [0, 1], resolvedOutcome: 'No' });
  });

  it('old samples are pruned, all of them, even while a refresh batch keeps failing', async () => {
    // More than one pruning statement's worth (5,000 rows each).
    const old = new Date(clock - 72 * 3_600_000);
    await sampleDaysFor(env.database.db, 'market_samples', [new Date(old.getTime() - 5200_000), old]);
    await env.database.rows(sql`insert into market_samples (market_id, at, volume, liquidity, price)
      select 'v2x', ${old.toISOString()}::timestamptz - i * interval '1 second', 1, 1, 0.5 from generate_series(0, 5200) i`);
    await syncWithoutRefresh();
    const kept = await env.database.db.select({ at: marketSamples.at }).from(marketSamples).where(eq(marketSamples.marketId, 'v2x'));
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.filter((s) => s.at.getTime() <= old.getTime())).toEqual([]);
  });
});

describe(`catalog sync: the refresh (${engineName})`, () => {
  it('rewrites only rows that differ, including values going back to null, end dates and token ids', async () => {
    venue.open = [event('f1', [market('f1x', { bestBid: 0.69 }), market('f1y')])];
    await sync();
    const before = await marketOf('f1y');
    venue.open = [
      event('f1', [market('f1x', { bestBid: null, endDate: '2026-12-31T00:00:00Z', clobTokenIds: ['f1xa', 'f1xb'] }), market('f1y')]),
    ];
    await sync();
    expect(await marketOf('f1y')).toEqual(before);
    expect(await marketOf('f1x')).toMatchObject({
      bestBid: null,
      endDate: new Date('2026-12-31T00:00:00Z'),
      clobTokenIds: ['f1xa', 'f1xb'],
      yesTokenId: 'f1xa',
    });
  });

  it('a pass stopped between refresh batches keeps the batches that committed; the next pass repairs the rest', async () => {
    // Three events of 60 markets: three batches of the refresh (REFRESH_BATCH_MARKETS is 100).
    const big = (id: string, price: number) => event(id, Array.from({ length: 60 }, (_, i) => market(`${id}-${i}`, { outcomePrices: [price, 1 - price] })));
    venue.open = [big('b1', 0.5), big('b2', 0.5), big('b3', 0.5)];
    await sync();
    await newChanges();
    venue.open = [big('b1', 0.25), big('b2', 0.25), big('b3', 0.25)];
    await withoutRefreshOf('b2', async () => void (await expect(sync()).rejects.toThrow()));
    expect(await newChanges()).toEqual([]);
    expect(await pricesOf('b1')).toEqual([0.25]);
    expect(await pricesOf('b2')).toEqual([0.5]);
    // The batch after the failing one still ran: one bad batch does not starve the rest.
    expect(await pricesOf('b3')).toEqual([0.25]);
    await sync();
    expect(await newChanges()).toEqual([]);
    for (const id of ['b1', 'b2', 'b3']) expect(await pricesOf(id)).toEqual([0.25]);
  });
});

describe(`catalog sync: what the venue lists oddly (${engineName})`, () => {
  it('a market listed under two events opens once, closes once, and does not stop the pass', async () => {
    venue.open = [event('d1', [market('d1x'), market('dd')]), event('d2', [market('d2x')])];
    await sync();
    await newChanges();

    // A new market in both events, and a stored one listed again under d2.
    venue.open = [event('d1', [market('d1x'), market('dd'), market('dn')]), event('d2', [market('d2x'), market('dn'), market('dd')])];
    await sync();
    expect(await newChanges()).toEqual([['new_market', 'd1', 'dn']]);
    expect(await marketOf('dd')).toMatchObject({ eventId: 'd1' });

    // Both listings say it resolved and closed: one resolution, one closing, the pass goes through.
    const resolved = market('dd', { closed: true, umaResolutionStatus: 'resolved', outcomePrices: [1, 0] });
    venue.open = [event('d1', [market('d1x'), resolved, market('dn')]), event('d2', [market('d2x'), market('dn'), resolved])];
    await sync();
    expect(await newChanges()).toEqual([
      ['resolution', 'd1', 'dd'],
      ['closed_market', 'd1', 'dd'],
    ]);
    await sync();
    expect(await newChanges()).toEqual([]);
  });

  it('a new event listed as closed opens nothing', async () => {
    venue.open = [event('c1', [market('c1x')])];
    await sync();
    await newChanges();
    venue.open = [event('c1', [market('c1x')]), event('c2', [market('c2x', { closed: true })], { closed: true })];
    await sync();
    expect(await newChanges()).toEqual([]);
    expect(await eventOf('c2')).toMatchObject({ closed: true });
  });

  it("a moved market's resolution names its new event, whatever its old event's closing answer says", async () => {
    venue.open = [event('g1', [market('g1x'), market('gm')]), event('g2', [market('g2x')])];
    await sync();
    await newChanges();

    // gm moved to g2 and resolved; g1 is gone, and the venue's answer for g1 still lists gm, proposed.
    venue.open = [event('g2', [market('g2x'), market('gm', { closed: true, umaResolutionStatus: 'resolved', outcomePrices: [0, 1] })])];
    venue.getEvent = async (id) =>
      id === 'g1' ? event('g1', [market('g1x', { closed: true }), market('gm', { umaResolutionStatus: 'proposed' })], { closed: true }) : null;
    try {
      await sync();
    } finally {
      venue.getEvent = async () => null;
    }
    const changes = await newChanges();
    expect(changes.filter(([kind]) => kind === 'resolution')).toEqual([['resolution', 'g2', 'gm']]);
    expect(await marketOf('gm')).toMatchObject({ eventId: 'g2', umaResolutionStatus: 'resolved', resolvedOutcome: 'No' });
  });
});

const withoutRefreshOf = (eventId: string, fn: () => Promise<void>) =>
  failingWrites(env.database, 'market_samples', 'insert', `new.market_id like '${eventId}-%'`, fn);

/** The distinct first outcome prices of an event's markets. */
async function pricesOf(eventId: string) {
  const rows = await env.database.db.select({ p: catalogMarkets.outcomePrices }).from(catalogMarkets).where(like(catalogMarkets.id, `${eventId}-%`));
  return [...new Set(rows.map((r) => r.p[0]))];
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { syncCatalogOnce } from '../../src/catalog/index.js';
import { catalogEventTags, catalogEvents, catalogMarkets } from '../../src/db/schema/index.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { silent } from '../venue/support.js';
import { event, fakeGamma, market } from './scripted-venue.js';
import { changeLog, failingWrites as failingWritesOn, installFailingWrites } from './failing-writes.js';

// A pass writes its changes in one transaction and refreshes the stored rows in others after it
// (src/catalog/sync.ts); a write made to fail stands for the process dying at one of them.

let env: TestEnv;
const { venue, gamma } = fakeGamma();
const sync = () => syncCatalogOnce({ database: env.database, gamma, logger: silent });
const none = { new_event: 0, new_market: 0, closed_market: 0, closed_event: 0, resolution: 0 };

beforeAll(async () => {
  env = await createTestEnv();
  await installFailingWrites(env.database);
});
afterAll(() => env?.close());

const newChanges = changeLog(() => env.database);

const failingWrites = (table: string, op: 'insert' | 'update', when: string, fn: () => Promise<void>) => failingWritesOn(env.database, table, op, when, fn);

const question = async (id: string) => (await env.database.db.select().from(catalogMarkets).where(eq(catalogMarkets.id, id)))[0]?.question;

describe(`catalog sync interrupted between its transactions (${engineName})`, () => {
  it('a refresh that fails after the changes committed: nothing is recorded twice and the next pass repairs the rows', async () => {
    venue.open = [event('a1', [market('a1x'), market('a1y')]), event('a2', [market('a2x')])];
    await sync();
    expect(await newChanges()).toEqual([]);

    venue.open = [
      event('a1', [market('a1x'), market('a1y', { closed: true, umaResolutionStatus: 'resolved', outcomePrices: [1, 0] }), market('a1z')]),
      event('a2', [market('a2x', { question: 'Renamed?' })], { title: 'A2 renamed' }),
      event('a3', [market('a3x')], { tags: [{ id: 't1', slug: 'flumox', label: 'Flumox' }] }),
    ];
    // The refresh of a2x fails: the pass stops after its change transaction committed.
    await failingWrites('catalog_markets', 'update', `new.question = 'Renamed?'`, async () => {
      await expect(sync()).rejects.toThrow();
    });
    const recorded = [
      ['new_event', 'a3', null],
      ['new_market', 'a3', 'a3x'],
      ['new_market', 'a1', 'a1z'],
      ['resolution', 'a1', 'a1y'],
      ['closed_market', 'a1', 'a1y'],
    ];
    expect(await newChanges()).toEqual(recorded);
    // The new event came with its tags (search and the watchlists' matching read them); a2x is stale.
    expect(await env.database.db.select().from(catalogEventTags).where(eq(catalogEventTags.eventId, 'a3'))).toEqual([{ eventId: 'a3', tagId: 't1' }]);
    expect(await question('a2x')).toBe('Q a2x?');

    const next = await sync();
    expect(next.changes).toEqual(none);
    expect(await newChanges()).toEqual([]);
    expect(await question('a2x')).toBe('Renamed?');
    const [a2] = await env.database.db.select().from(catalogEvents).where(eq(catalogEvents.id, 'a2'));
    expect(a2!.title).toBe('A2 renamed');
    expect((await sync()).changes).toEqual(none);
  });

  it('a change transaction that fails records nothing; the next pass records each change once', async () => {
    venue.open = [...venue.open.filter((e) => e.id !== 'a2'), event('a2', [market('a2x', { closed: true })]), event('b1', [market('b1x'), market('b1y')])];
    await failingWrites('catalog_changes', 'insert', 'true', async () => {
      await expect(sync()).rejects.toThrow();
    });
    expect(await newChanges()).toEqual([]);
    expect(await env.database.db.select().from(catalogEvents).where(eq(catalogEvents.id, 'b1'))).toEqual([]);

    const next = await sync();
    expect(next.changes).toEqual({ ...none, new_event: 1, new_market: 2, closed_market: 1 });
    expect(await newChanges()).toEqual([
      ['new_event', 'b1', null],
      ['new_market', 'b1', 'b1x'],
      ['new_market', 'b1', 'b1y'],
      ['closed_market', 'a2', 'a2x'],
    ]);
    expect((await sync()).changes).toEqual(none);
    expect(await newChanges()).toEqual([]);
  });

  it('a market moved to a new event is stored under it; it is no new market', async () => {
    venue.open = [...venue.open, event('c1', [market('a1x'), market('c1x')])];
    venue.open = venue.open.map((e) => (e.id === 'a1' ? { ...e, markets: e.markets.filter((m) => m.id !== 'a1x') } : e));
    const moved = await sync();
    expect(moved.changes).toEqual({ ...none, new_event: 1, new_market: 1 });
    expect(await newChanges()).toEqual([
      ['new_event', 'c1', null],
      ['new_market', 'c1', 'c1x'],
    ]);
    const [m] = await env.database.db.select().from(catalogMarkets).where(eq(catalogMarkets.id, 'a1x'));
    expect(m).toMatchObject({ eventId: 'c1', closed: false, position: 0 });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { syncCatalogOnce } from '../../src/catalog/index.js';
import { catalogEvents } from '../../src/db/schema/index.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { silent } from '../venue/support.js';
import { changeLog } from './failing-writes.js';
import { event, fakeGamma, market } from './scripted-venue.js';

// A pass reads the stored catalog by what is open and what the venue lists (src/catalog/state.ts),
// not the whole tables: closed rows pile up for good. What it tells must not change for that.

let env: TestEnv;
let clock = Date.parse('2026-04-01T00:00:00.000Z');
const { venue, gamma } = fakeGamma();
const sync = () => syncCatalogOnce({ database: env.database, gamma, logger: silent, now: () => new Date((clock += 60_000)) });

beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

const newChanges = changeLog(() => env.database);
// The events the first two tests leave open, listed on by the later ones.
const stillOpen = () => [event('h2', [market('h2x')]), event('h1', [market('h1x')])];

describe(`catalog sync: closed rows kept from earlier passes (${engineName})`, () => {
  it('a catalog whose every event has closed is no first fill: an event listed next is new', async () => {
    venue.open = [event('h1', [market('h1x')])];
    expect((await sync()).firstSync).toBe(true);
    venue.open = [];
    venue.getEvent = async (id) => (id === 'h1' ? event('h1', [market('h1x', { closed: true })], { closed: true }) : null);
    await sync();
    expect(await newChanges()).toEqual([
      ['closed_market', 'h1', 'h1x'],
      ['closed_event', 'h1', null],
    ]);

    venue.open = [event('h2', [market('h2x')])];
    expect((await sync()).firstSync).toBe(false);
    expect(await newChanges()).toEqual([
      ['new_event', 'h2', null],
      ['new_market', 'h2', 'h2x'],
    ]);
  });

  it('an event the venue lists again after it closed opens nothing, and is stored open again', async () => {
    venue.open = stillOpen();
    await sync();
    expect(await newChanges()).toEqual([]);
    const [h1] = await env.database.db.select({ closed: catalogEvents.closed }).from(catalogEvents).where(eq(catalogEvents.id, 'h1'));
    expect(h1?.closed).toBe(false);
  });

  it('an event that closes tells the resolution of a market of it that had closed before', async () => {
    venue.open = [...stillOpen(), event('h3', [market('h3a'), market('h3b')])];
    await sync();
    venue.open = [...stillOpen(), event('h3', [market('h3a'), market('h3b', { closed: true, umaResolutionStatus: 'proposed' })])];
    await sync();
    expect(await newChanges()).toEqual([
      ['new_event', 'h3', null],
      ['new_market', 'h3', 'h3a'],
      ['new_market', 'h3', 'h3b'],
      ['resolution', 'h3', 'h3b'],
      ['closed_market', 'h3', 'h3b'],
    ]);

    venue.open = stillOpen();
    venue.getEvent = async (id) =>
      id === 'h3'
        ? event('h3', [market('h3a', { closed: true, umaResolutionStatus: 'resolved' }), market('h3b', { closed: true, umaResolutionStatus: 'resolved' })], { closed: true })
        : null;
    await sync();
    expect(await newChanges()).toEqual([
      ['resolution', 'h3', 'h3a'],
      ['resolution', 'h3', 'h3b'],
      ['closed_market', 'h3', 'h3a'],
      ['closed_event', 'h3', null],
    ]);
  });

  it('more open markets than one read takes: the last one, when the venue stops listing it, is closed', async () => {
    // Over 5,000 (the rows a statement of the pass reads at most), so the read goes on past a page.
    const ids = Array.from({ length: 5003 }, (_, i) => `p-${String(i).padStart(5, '0')}`);
    venue.open = [...stillOpen(), event('p', ids.map((id) => market(id)))];
    await sync();
    expect(await newChanges()).toHaveLength(1 + ids.length);

    const last = ids.at(-1)!;
    venue.open = [...stillOpen(), event('p', ids.slice(0, -1).map((id) => market(id)))];
    venue.getMarket = async (id) => (id === last ? market(last, { closed: true }) : null);
    await sync();
    expect(await newChanges()).toEqual([['closed_market', 'p', last]]);
  }, 60_000);
});

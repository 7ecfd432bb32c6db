import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, asc, count, eq, gt } from 'drizzle-orm';
import { syncCatalogOnce, startCatalogSync } from '../../src/catalog/index.js';
import {
  catalogChanges,
  catalogEventTags,
  catalogEvents,
  catalogMarkets,
  marketSamples,
  watchlistEvents,
  watchlistMarkets,
} from '../../src/db/schema/index.js';
import { createWatchlist } from '../../src/services/watchlists/index.js';
import { createGammaClient } from '../../src/venue/gamma/client.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { expectNothingFor, waitFor } from '../support/wait.js';
import { postJson, silent, startSimulatorWithSync } from '../venue/support.js';

type Started = Awaited<ReturnType<typeof startSimulatorWithSync>>;

let env: TestEnv;
let s: Started;
let sync: Started['sync'];
let lastChangeId = 0;

beforeAll(async () => {
  env = await createTestEnv();
  s = await startSimulatorWithSync(env.database, { eventCount: 20 });
  sync = s.sync;
});
afterAll(async () => {
  await s?.sim.stop();
  await env?.close();
});

/** Changes recorded since the previous call. */
async function newChanges() {
  const rows = await env.database.db.select().from(catalogChanges).where(gt(catalogChanges.id, lastChangeId)).orderBy(asc(catalogChanges.id));
  lastChangeId = rows.at(-1)?.id ?? lastChangeId;
  return rows.map((r) => ({ kind: r.kind, eventId: r.eventId, marketId: r.marketId }));
}

/** The changes the next sync writes, waiting up to 10 s for them (the loop runs on its own timer). */
function firstNewChanges() {
  return waitFor(
    async () => {
      const seen = await newChanges();
      return seen.length > 0 && seen;
    },
    { timeoutMs: 10_000, intervalMs: 50, message: 'the changes of the next sync' },
  );
}

const addEvent = async (body: object) => (await postJson(`${s.urls.controlUrl}/events`, body)).json.event as { id: string; markets: { id: string }[] };

describe(`catalog sync against the simulator (${engineName})`, () => {
  it('the first sync fills an empty catalog and records no changes', async () => {
    const report = await sync();
    expect(report.firstSync).toBe(true);
    const open = [...s.sim.state.events.values()].filter((e) => e.closedAtMs === null);
    expect(report.events).toBe(open.length);
    const [events] = await env.database.db.select({ n: count() }).from(catalogEvents);
    const [markets] = await env.database.db.select({ n: count() }).from(catalogMarkets);
    const [samples] = await env.database.db.select({ n: count() }).from(marketSamples);
    expect(events!.n).toBe(open.length);
    expect(markets!.n).toBe(report.markets);
    expect(samples!.n).toBe(report.markets);
    const [tagged] = await env.database.db.select({ n: count() }).from(catalogEventTags);
    expect(tagged!.n).toBeGreaterThan(0);
    const [m] = await env.database.db.select().from(catalogMarkets).limit(1);
    expect(m!.yesTokenId).toBe(m!.clobTokenIds[0]);
    expect(await newChanges()).toEqual([]);
  });

  it('a new event is recorded once, with its markets, and then the re-run records nothing', async () => {
    const e = await addEvent({ title: 'Will the flumox referendum pass?', tags: ['politics'], markets: [{ question: 'Yes?' }, { question: 'Maybe?' }] });
    const report = await sync();
    expect(report.firstSync).toBe(false);
    expect(await newChanges()).toEqual([
      { kind: 'new_event', eventId: e.id, marketId: null },
      ...e.markets.map((m) => ({ kind: 'new_market', eventId: e.id, marketId: m.id })),
    ]);
    await sync();
    expect(await newChanges()).toEqual([]);
    const [samples] = await env.database.db.select({ n: count() }).from(marketSamples).where(eq(marketSamples.marketId, e.markets[0]!.id));
    expect(samples!.n).toBe(2);
  });

  it('a closed market and a closed event are each recorded once', async () => {
    const e = await addEvent({ title: 'Gorblin cup winner', markets: [{ question: 'A?' }, { question: 'B?' }] });
    await sync();
    await newChanges();
    await postJson(`${s.urls.controlUrl}/markets/${e.markets[0]!.id}/close`, {});
    await sync();
    // The venue resolves a market as it closes it: the resolution is recorded first.
    expect(await newChanges()).toEqual([
      { kind: 'resolution', eventId: e.id, marketId: e.markets[0]!.id },
      { kind: 'closed_market', eventId: e.id, marketId: e.markets[0]!.id },
    ]);
    await sync();
    expect(await newChanges()).toEqual([]);

    await postJson(`${s.urls.controlUrl}/events/${e.id}/close`, {});
    await sync();
    // The closed event is gone from the open catalog: its markets' resolution comes from the confirmation.
    expect(await newChanges()).toEqual([
      { kind: 'resolution', eventId: e.id, marketId: e.markets[1]!.id },
      { kind: 'closed_market', eventId: e.id, marketId: e.markets[1]!.id },
      { kind: 'closed_event', eventId: e.id, marketId: null },
    ]);
    await sync();
    expect(await newChanges()).toEqual([]);
    const [stored] = await env.database.db.select().from(catalogEvents).where(eq(catalogEvents.id, e.id));
    expect(stored).toMatchObject({ closed: true, closedAt: expect.any(Date) });
  });

  it('a new market of a known event is recorded once and joins watchlists that auto-fetch the event', async () => {
    const e = await addEvent({ title: 'Plinth race', markets: [{ question: 'First?' }, { question: 'Second?' }] });
    await sync();
    await newChanges();
    const a = await env.newAccount();
    const w = await createWatchlist({ ctx: a.ctx, input: { name: 'plinth', events: { [e.id]: { autoFetch: true, markets: [e.markets[0]!.id] } } } });
    // Forget the second market, as if the venue had just added it.
    await env.database.db.delete(catalogMarkets).where(eq(catalogMarkets.id, e.markets[1]!.id));
    await sync();
    expect(await newChanges()).toEqual([{ kind: 'new_market', eventId: e.id, marketId: e.markets[1]!.id }]);
    const held = await env.database.db
      .select({ id: watchlistMarkets.marketId })
      .from(watchlistMarkets)
      .where(eq(watchlistMarkets.watchlistId, w.id))
      .orderBy(asc(watchlistMarkets.position));
    expect(held.map((m) => m.id)).toEqual(e.markets.map((m) => m.id));
  });

  it('watchlists with automaticallyAddMatchingEvents take in matching new events only', async () => {
    const a = await env.newAccount();
    const yes = await createWatchlist({
      ctx: a.ctx,
      input: { name: 'auto', automaticallyAddMatchingEvents: true, query: { keyphrases: [{ text: 'zaphod' }, { text: 'beeblebrox', include: false }] } },
    });
    const off = await createWatchlist({ ctx: a.ctx, input: { name: 'manual', query: { keyphrases: [{ text: 'zaphod' }] } } });
    const match = await addEvent({ title: 'Zaphod elected president', markets: [{ question: 'Yes?' }, { question: 'No?' }] });
    await addEvent({ title: 'Zaphod Beeblebrox returns', markets: [{ question: 'Yes?' }] });
    await addEvent({ title: 'Unrelated arthur event', markets: [{ question: 'Yes?' }] });
    await sync();
    const events = await env.database.db.select().from(watchlistEvents).where(eq(watchlistEvents.watchlistId, yes.id));
    expect(events.map((e) => ({ id: e.eventId, autoFetch: e.autoFetch }))).toEqual([{ id: match.id, autoFetch: true }]);
    const markets = await env.database.db
      .select({ id: watchlistMarkets.marketId })
      .from(watchlistMarkets)
      .where(and(eq(watchlistMarkets.watchlistId, yes.id), eq(watchlistMarkets.eventId, match.id)))
      .orderBy(asc(watchlistMarkets.position));
    expect(markets.map((m) => m.id)).toEqual(match.markets.map((m) => m.id));
    expect(await env.database.db.select().from(watchlistEvents).where(eq(watchlistEvents.watchlistId, off.id))).toEqual([]);
  });

  it('startCatalogSync syncs on its timer as leader and stops cleanly', async () => {
    const gamma = createGammaClient({ baseUrl: s.urls.gammaUrl, logger: silent, timeoutMs: 5000 });
    await newChanges();
    const e = await addEvent({ title: 'Timer event', markets: [{ question: 'Tick?' }] });
    const loop = startCatalogSync({ database: env.database, gamma, logger: silent, intervalMs: 60_000 });
    try {
      const seen = await firstNewChanges();
      expect(seen.map((c) => c.kind)).toEqual(['new_event', 'new_market']);
      const again = await loop.syncOnce();
      expect(again.changes).toEqual({ new_event: 0, new_market: 0, closed_market: 0, closed_event: 0, resolution: 0 });
      expect(e.id).toBeTruthy();
    } finally {
      await loop.stop();
    }
  });
});

describe(`catalog sync through a simulated catalog outage (${engineName})`, () => {
  it('records the failure while the catalog API fails and recovers once it answers again', async () => {
    const { createLogger } = await import('../../src/logger.js');
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    const gamma = createGammaClient({ baseUrl: s.urls.gammaUrl, logger, timeoutMs: 5000, retry: { retries: 1, minDelayMs: 10, maxDelayMs: 10 } });
    await sync();
    await newChanges();
    await postJson(`${s.urls.controlUrl}/gamma/fail`, { seconds: 60, status: 503 });
    const e = await addEvent({ title: 'Outage event', markets: [{ question: 'Down?' }] });
    await expect(syncCatalogOnce({ database: env.database, gamma, logger })).rejects.toThrow(/HTTP 503/);
    const loop = startCatalogSync({ database: env.database, gamma, logger, intervalMs: 50 });
    try {
      await expect.poll(() => lines.filter((l) => l.includes('catalog sync failed')).length, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
      expect(await newChanges()).toEqual([]);
      await postJson(`${s.urls.controlUrl}/gamma/fail`, { seconds: 0 });
      const seen = await firstNewChanges();
      expect(seen).toEqual([
        { kind: 'new_event', eventId: e.id, marketId: null },
        { kind: 'new_market', eventId: e.id, marketId: e.markets[0]!.id },
      ]);
    } finally {
      await postJson(`${s.urls.controlUrl}/gamma/fail`, { seconds: 0 });
      await loop.stop();
    }
  });
});

describe.runIf(engineName === 'postgres')('catalog sync leadership (postgres)', () => {
  it('skips its ticks while another process holds the sync lock', async () => {
    const { SYNC_LOCK } = await import('../../src/catalog/index.js');
    const gamma = createGammaClient({ baseUrl: s.urls.gammaUrl, logger: silent, timeoutMs: 5000 });
    await newChanges();
    const held = await env.database.tryAdvisoryLock(SYNC_LOCK);
    expect(held).toBeDefined();
    await addEvent({ title: 'Held lock event', markets: [{ question: 'Held?' }] });
    const loop = startCatalogSync({ database: env.database, gamma, logger: silent, intervalMs: 100 });
    try {
      // Five ticks of the loop: each finds the lock taken and skips.
      await expectNothingFor(500, newChanges, { intervalMs: 50, message: 'a sync while another process held the lock' });
      expect(await newChanges()).toEqual([]);
      await held!.release();
      const seen = await firstNewChanges();
      expect(seen.map((c) => c.kind)).toEqual(['new_event', 'new_market']);
    } finally {
      await loop.stop();
    }
  });
});

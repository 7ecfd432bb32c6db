import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGammaClient } from '../../src/venue/gamma/client.js';
import type { VenueEvent } from '../../src/venue/gamma/types.js';
import { getJson, silent, startSimulator } from './support.js';

type Started = Awaited<ReturnType<typeof startSimulator>>;

async function collect(pages: AsyncIterable<VenueEvent[]>) {
  const ids: string[] = [];
  let pageCount = 0;
  for await (const page of pages) {
    pageCount += 1;
    ids.push(...page.map((e) => e.id));
  }
  return { ids, pageCount };
}

function openEventIds(started: Started): string[] {
  return [...started.sim.state.events.values()].filter((e) => !e.closed).map((e) => e.id).sort();
}

describe('Gamma client against the simulator', () => {
  let keyset: Started;
  let legacy: Started;
  beforeAll(async () => {
    keyset = await startSimulator({ eventCount: 320 });
    legacy = await startSimulator({ eventCount: 320, legacyOffsetOnly: true });
  });
  afterAll(async () => {
    await keyset.sim.stop();
    await legacy.sim.stop();
  });

  it('pages the whole open catalog by keyset, each open event once', async () => {
    const client = createGammaClient({ baseUrl: keyset.urls.gammaUrl, logger: silent, timeoutMs: 2000, keysetLimit: 50 });
    const { ids, pageCount } = await collect(client.fetchOpenEvents());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(openEventIds(keyset));
    expect(pageCount).toBeGreaterThan(5);
  });

  it('falls back to offset paging when keyset answers 404, without losing or repeating events', async () => {
    expect((await getJson(`${legacy.urls.gammaUrl}/events/keyset?limit=5`)).status).toBe(404);
    const client = createGammaClient({ baseUrl: legacy.urls.gammaUrl, logger: silent, timeoutMs: 2000, offsetLimit: 40 });
    const { ids } = await collect(client.fetchOpenEvents());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(openEventIds(legacy));
  });

  it('does not lose an open event when another one closes between two offset pages', async () => {
    const client = createGammaClient({ baseUrl: legacy.urls.gammaUrl, logger: silent, timeoutMs: 2000, offsetLimit: 40 });
    const expected = openEventIds(legacy);
    const ids: string[] = [];
    let closedOne = false;
    for await (const page of client.fetchOpenEvents()) {
      ids.push(...page.map((e) => e.id));
      if (!closedOne) {
        // Close an event already read: every later row shifts back by one.
        closedOne = true;
        await fetch(`${legacy.urls.controlUrl}/events/${page[0]?.id}/close`, { method: 'POST' });
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(expected);
  });

  it('reads one event, one market and the tags; unknown ids give null', async () => {
    const client = createGammaClient({ baseUrl: keyset.urls.gammaUrl, logger: silent, timeoutMs: 2000 });
    const simEvent = [...keyset.sim.state.events.values()].find((e) => e.negRisk && !e.closed);
    const event = await client.getEvent(simEvent?.id ?? '');
    expect(event?.markets.length).toBe(simEvent?.marketIds.length);
    expect(event?.markets[0]?.clobTokenIds).toHaveLength(2);
    const market = await client.getMarket(event?.markets[0]?.id ?? '');
    expect(market).toMatchObject({ id: event?.markets[0]?.id, eventId: event?.id, outcomes: ['Yes', 'No'] });
    expect(await client.getEvent('999999999')).toBeNull();
    expect(await client.getMarket('999999999')).toBeNull();
    expect((await client.listTags()).map((t) => t.slug)).toEqual(expect.arrayContaining(['politics', 'crypto', 'sports']));
  });
});

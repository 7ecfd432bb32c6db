import type { Logger } from '../logger.js';
import type { GammaClient } from '../venue/gamma/client.js';
import type { VenueEvent, VenueMarket } from '../venue/gamma/types.js';
import { resolvedOutcome } from './rows.js';
import type { StoredCatalog } from './state.js';

/** What closed or resolved since the last pass. Openings are found by inserting (src/catalog/new-rows.ts). */
export interface Found {
  closedMarkets: { eventId: string; marketId: string }[];
  closedEvents: string[];
  /** Stored markets whose umaResolutionStatus is not the stored one, from the fetched catalog or the closing confirmations. */
  resolutions: Resolution[];
}

export interface Resolution {
  eventId: string;
  marketId: string;
  status: string;
  previous: string;
  outcome: string | null;
}

/**
 * Compares the fetched open catalog with the stored one. What disappeared is confirmed with the
 * venue before it counts as closed; a failed confirmation is left for the next sync.
 */
export async function diffCatalog(
  stored: StoredCatalog,
  fetched: VenueEvent[],
  deps: { gamma: GammaClient; logger: Logger },
): Promise<Found> {
  const found: Found = { closedMarkets: [], closedEvents: [], resolutions: [] };
  const resolutions = new Map<string, Resolution>();
  // A market first seen brings its status with it (no change), as every market of a first fill does.
  // A stored one is compared, in a first fill too: one that stopped half-way stored some markets,
  // and their resolutions meanwhile are real changes, told once like their closings.
  const noteStatus = (eventId: string, m: VenueMarket) => {
    const previous = stored.resolutionStatus.get(m.id);
    if (previous === undefined || previous === m.umaResolutionStatus) return;
    resolutions.set(m.id, { eventId, marketId: m.id, status: m.umaResolutionStatus, previous, outcome: resolvedOutcome(m) });
  };
  const seenOpenMarkets = new Set<string>();
  const fetchedMarkets = new Set<string>();
  const fetchedEventIds = new Set<string>();
  const fetchedClosed = new Set<string>();
  for (const e of fetched) {
    fetchedEventIds.add(e.id);
    for (const m of e.markets) {
      fetchedMarkets.add(m.id);
      if (m.closed) fetchedClosed.add(m.id);
      else seenOpenMarkets.add(m.id);
      noteStatus(e.id, m);
    }
  }

  const confirmedClosed = new Set<string>();
  const goneEvents = [...stored.openEventIds].filter((id) => !fetchedEventIds.has(id));
  await eachLimited(goneEvents, 8, async (id) => {
    const e = await confirm(deps, 'event', id, () => deps.gamma.getEvent(id));
    if (e === undefined) return;
    if (e !== null && !e.closed && !e.archived) return;
    found.closedEvents.push(id);
    for (const m of e?.markets ?? []) {
      if (m.closed) confirmedClosed.add(m.id);
      // The open catalog's listing is the newer word on a market it holds (one moved to another
      // event is still listed by its old event's answer): the change names the event it is under.
      if (!fetchedMarkets.has(m.id)) noteStatus(id, m);
    }
  });

  const goneMarkets = [...stored.openMarkets.keys()].filter((id) => !seenOpenMarkets.has(id));
  await eachLimited(goneMarkets, 8, async (id) => {
    if (confirmedClosed.has(id) || fetchedClosed.has(id)) {
      found.closedMarkets.push({ eventId: stored.openMarkets.get(id)!, marketId: id });
      return;
    }
    const m = await confirm(deps, 'market', id, () => deps.gamma.getMarket(id));
    if (m === undefined) return;
    if (m !== null) noteStatus(stored.openMarkets.get(id)!, m);
    if (m === null || m.closed || m.archived) found.closedMarkets.push({ eventId: stored.openMarkets.get(id)!, marketId: id });
  });
  found.resolutions = [...resolutions.values()].sort((a, b) => (a.marketId < b.marketId ? -1 : a.marketId > b.marketId ? 1 : 0));
  return found;
}

/** The venue's answer; `null` when it does not know the id (gone), `undefined` when the call failed. */
async function confirm<T>(deps: { logger: Logger }, kind: string, id: string, get: () => Promise<T | null>): Promise<T | null | undefined> {
  try {
    return await get();
  } catch (err) {
    deps.logger.warn({ err, kind, id }, 'could not confirm a closing with the venue; retried next sync');
    return undefined;
  }
}

async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

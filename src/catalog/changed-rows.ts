import { eq } from 'drizzle-orm';
import type { Tx } from '../db/client.js';
import { catalogMarkets } from '../db/schema/index.js';
import type { VenueEvent } from '../venue/gamma/types.js';
import type { Found } from './diff.js';
import { refreshRows } from './refresh.js';
import type { StoredCatalog } from './state.js';

/**
 * Puts stored markets the venue moved to another event under that event, so what the change
 * transaction does next (the watchlists taking in a new event, a resolution naming the market's new
 * event, a closing's event) sees where the market is now, not where the refresh would put it later.
 * The new events are inserted before this (foreign key).
 */
export async function moveMarkets(tx: Tx, fetched: VenueEvent[], stored: StoredCatalog, now: Date): Promise<void> {
  for (const e of fetched) {
    for (const [position, m] of e.markets.entries()) {
      const was = stored.marketEvents.get(m.id);
      if (was === undefined || was === e.id) continue;
      await tx.update(catalogMarkets).set({ eventId: e.id, position, updatedAt: now }).where(eq(catalogMarkets.id, m.id));
    }
  }
}

/**
 * Refreshes, in the change transaction, the fetched rows its changes name: the markets resolving or
 * closing (their final prices and question) and the events of every change (their title). The
 * engine builds each notice once from the stored rows, soon after the change commits; the refresh
 * batches come later, or after a crash not until the next pass. Its size follows the changes.
 */
export async function refreshChangedRows(
  tx: Tx,
  fetched: VenueEvent[],
  stored: StoredCatalog,
  changed: { found: Found; newMarkets: { eventId: string }[] },
  now: Date,
): Promise<void> {
  const { found, newMarkets } = changed;
  const marketIds = new Set([...found.resolutions, ...found.closedMarkets].map((m) => m.marketId));
  const eventIds = new Set([...found.resolutions, ...found.closedMarkets, ...newMarkets].map((m) => m.eventId));
  const events = fetched.filter((e) => eventIds.has(e.id) || e.markets.some((m) => marketIds.has(m.id)));
  if (events.length === 0) return;
  await refreshRows(tx, events, stored, now, marketIds);
}

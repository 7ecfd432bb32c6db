import type { Tx } from '../db/client.js';
import { catalogEvents, catalogMarkets } from '../db/schema/index.js';
import type { VenueEvent } from '../venue/gamma/types.js';
import { replaceEventTags } from './event-tags.js';
import { chunks, eventRow, marketRow } from './rows.js';
import type { StoredCatalog } from './state.js';

export interface Inserted {
  eventIds: Set<string>;
  marketIds: Set<string>;
}

/**
 * Inserts the fetched events and markets the stored catalog did not have, with their tags and tag
 * links, and returns the ids this call inserted. Rows already there are left to the refresh: a
 * change is recorded only for a row its own transaction inserted, so a pass re-run after a crash
 * cannot record an opening twice.
 */
export async function insertNewRows(tx: Tx, fetched: VenueEvent[], stored: StoredCatalog, now: Date): Promise<Inserted> {
  const newEvents = fetched.filter((e) => !stored.eventIds.has(e.id));
  const eventIds = new Set<string>();
  for (const batch of chunks(newEvents.map((e) => eventRow(e, now)))) {
    const rows = await tx.insert(catalogEvents).values(batch).onConflictDoNothing().returning({ id: catalogEvents.id });
    for (const r of rows) eventIds.add(r.id);
  }
  // After the events: a new market may belong to a new event (foreign key).
  const newMarkets = fetched.flatMap((e) => e.markets.flatMap((m, i) => (stored.marketEvents.has(m.id) ? [] : [marketRow(m, e.id, i, now)])));
  const marketIds = new Set<string>();
  for (const batch of chunks(newMarkets, 300)) {
    const rows = await tx.insert(catalogMarkets).values(batch).onConflictDoNothing().returning({ id: catalogMarkets.id });
    for (const r of rows) marketIds.add(r.id);
  }
  // Search and the watchlists' matching (in this same transaction) need the new events' tags.
  await replaceEventTags(tx, newEvents.filter((e) => eventIds.has(e.id)));
  return { eventIds, marketIds };
}

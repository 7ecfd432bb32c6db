import { inTransaction, type Database } from '../db/client.js';
import type { VenueEvent } from '../venue/gamma/types.js';
import { insertNewRows } from './new-rows.js';
import { eventBatches, REFRESH_BATCH_MARKETS, yieldTurn } from './refresh.js';
import type { StoredCatalog } from './state.js';

/**
 * The first fill's rows, inserted in transactions of about `REFRESH_BATCH_MARKETS` markets (whole
 * events), a turn of the event loop between them: on PGlite the whole catalog in one transaction
 * held the process's one connection, and so the API, for seconds (3 s at 7,800 markets on a 2-core
 * VM). Nothing is recorded: the pass that follows marks the fill finished
 * (`catalog_sync_status.filled_at`) in its change transaction, and until it has, every pass is a
 * first fill, so a fill stopped half-way is finished by the next pass without recording the rest
 * of the venue as new. Returns `stored` with the rows inserted here, for that change transaction.
 */
export async function insertFirstFill(database: Database, fetched: VenueEvent[], stored: StoredCatalog, now: Date): Promise<StoredCatalog> {
  const known: StoredCatalog = { ...stored, eventIds: new Set(stored.eventIds), marketEvents: new Map(stored.marketEvents) };
  let batch = 0;
  for (const events of eventBatches(fetched, REFRESH_BATCH_MARKETS)) {
    if (batch++ > 0) await yieldTurn();
    const inserted = await inTransaction(database.db, (tx) => insertNewRows(tx, events, known, now));
    for (const e of events) {
      if (inserted.eventIds.has(e.id)) known.eventIds.add(e.id);
      for (const m of e.markets) if (inserted.marketIds.has(m.id)) known.marketEvents.set(m.id, e.id);
    }
  }
  return known;
}

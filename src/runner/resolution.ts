import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { RESOLUTION_TYPE } from '../domain/enums.js';
import type { BatchingOptions } from '../delivery/enqueue.js';
import { statusPayloadBase } from '../delivery/payloads.js';
import type { CatalogChange } from './catalog-notices.js';
import { loadEvent } from './catalog-effects.js';
import { fireLifecycle } from './lifecycle-fire.js';

// A market's umaResolutionStatus changed (a `resolution` catalog change, written once by the sync):
// each armed Resolution rule covering the market gets one notice. The change's id names the notice,
// so every engine process may read the change and only one notice is written.

/** Armed Resolution rules covering the market: on it, on its event, or a watchlist holding it. */
async function resolutionRules(database: Database, eventId: string, marketId: string): Promise<string[]> {
  const rows = await database.rows<{ id: string }>(sql`
    select s.id from subscriptions s
    where s.enabled and s.type = ${RESOLUTION_TYPE} and (
      (s.scope = 'Market' and s.market_id = ${marketId})
      or (s.scope = 'Event' and s.event_id = ${eventId})
      or (s.scope = 'Watchlist' and exists (
        select 1 from watchlist_markets wm where wm.watchlist_id = s.watchlist_id and wm.market_id = ${marketId})))
    order by s.id`);
  return rows.map((r) => r.id);
}

export async function notifyResolution(database: Database, change: CatalogChange, batching?: BatchingOptions): Promise<number> {
  if (change.kind !== 'resolution' || !change.marketId || !change.details) return 0;
  const loaded = await loadEvent(database.db, change.eventId);
  const market = loaded?.markets.find((m) => m.id === change.marketId);
  if (!loaded || !market) return 0;
  const base = statusPayloadBase(loaded.event, { scope: 'Market', trigger: 'Resolution', market }, change.detectedAt);
  const { resolutionStatus, previousResolutionStatus, outcome } = change.details;
  const details = { resolutionStatus, previousResolutionStatus, ...(outcome === undefined ? {} : { outcome }) };
  let written = 0;
  for (const subscriptionId of await resolutionRules(database, change.eventId, market.id)) {
    const outcomeOf = await fireLifecycle(
      database.db,
      { subscriptionId, marketId: market.id, base, details, detectedAt: change.detectedAt, dedupeKey: `${subscriptionId}:resolution:${change.id}`, holdToInterval: false },
      batching,
    );
    if (outcomeOf === 'written') written++;
  }
  return written;
}

import { inArray, lt, sql } from 'drizzle-orm';
import type { Tx } from '../db/client.js';
import { catalogEventTags, catalogEvents, catalogMarkets, catalogTags, marketSamples } from '../db/schema/index.js';
import type { VenueEvent } from '../venue/gamma/types.js';
import { chunks, eventRow, marketRow } from './rows.js';

// Samples serve the 24 h chart and volume windows; older ones are dropped (with a day's margin).
export const SAMPLE_RETENTION_MS = 48 * 3_600_000;

// Columns an upsert refreshes from the venue. A market's `closed` is not among them: closing is
// the sync's change detection (src/catalog/sync.ts), so each closing is recorded once.
const EVENT_UPDATES = ['slug', 'title', 'description', 'image', 'icon', 'active', 'closed', 'archived', 'neg_risk']
  .concat(['start_date', 'end_date', 'volume', 'volume_24hr', 'liquidity', 'updated_at']);
const MARKET_UPDATES = ['event_id', 'position', 'question', 'slug', 'group_item_title', 'condition_id', 'outcomes']
  .concat(['outcome_prices', 'clob_token_ids', 'yes_token_id', 'image', 'active', 'archived', 'volume', 'volume_24hr'])
  .concat(['liquidity', 'best_bid', 'best_ask', 'last_trade_price', 'end_date', 'updated_at']);

const camel = (column: string) => column.replace(/_(\w)/g, (_, ch: string) => ch.toUpperCase());
const fromExcluded = (columns: string[]) => Object.fromEntries(columns.map((c) => [camel(c), sql.raw(`excluded.${c}`)]));

/** Writes the fetched open events, their markets, tags and one sample per market. */
export async function upsertCatalog(tx: Tx, events: VenueEvent[], now: Date): Promise<void> {
  for (const batch of chunks(events.map((e) => eventRow(e, now)))) {
    await tx
      .insert(catalogEvents)
      .values(batch)
      .onConflictDoUpdate({
        target: catalogEvents.id,
        set: fromExcluded(EVENT_UPDATES),
      });
  }
  const markets = events.flatMap((e) => e.markets.map((m, i) => marketRow(m, e.id, i, now)));
  for (const batch of chunks(markets, 300)) {
    await tx
      .insert(catalogMarkets)
      .values(batch)
      .onConflictDoUpdate({
        target: catalogMarkets.id,
        set: fromExcluded(MARKET_UPDATES),
      });
  }
  const samples = events.flatMap((e) =>
    e.markets.map((m) => ({ marketId: m.id, at: now, volume: m.volume, liquidity: m.liquidity, price: m.outcomePrices[0] ?? null })),
  );
  for (const batch of chunks(samples, 1000)) await tx.insert(marketSamples).values(batch).onConflictDoNothing();
  await tx.delete(marketSamples).where(lt(marketSamples.at, new Date(now.getTime() - SAMPLE_RETENTION_MS)));
  await replaceEventTags(tx, events);
}

async function replaceEventTags(tx: Tx, events: VenueEvent[]): Promise<void> {
  const tags = new Map(events.flatMap((e) => e.tags).map((t) => [t.id, t]));
  for (const batch of chunks([...tags.values()])) {
    // A slug taken by another id is left as it is; links to the skipped id are dropped below.
    await tx.insert(catalogTags).values(batch).onConflictDoNothing();
  }
  const known = new Set<string>();
  for (const ids of chunks([...tags.keys()], 1000)) {
    for (const r of await tx.select({ id: catalogTags.id }).from(catalogTags).where(inArray(catalogTags.id, ids))) known.add(r.id);
  }
  for (const ids of chunks(events.map((e) => e.id), 1000)) {
    await tx.delete(catalogEventTags).where(inArray(catalogEventTags.eventId, ids));
  }
  const links = events.flatMap((e) => [...new Set(e.tags.map((t) => t.id))].filter((id) => known.has(id)).map((tagId) => ({ eventId: e.id, tagId })));
  for (const batch of chunks(links, 1000)) await tx.insert(catalogEventTags).values(batch).onConflictDoNothing();
}

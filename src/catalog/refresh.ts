import { sql } from 'drizzle-orm';
import { inTransaction, type Db, type Tx } from '../db/client.js';
import { DAY_MS, keepDays } from '../db/day-partitions.js';
import { catalogEvents, catalogMarkets, marketSamples } from '../db/schema/index.js';
import type { Logger } from '../logger.js';
import type { VenueEvent } from '../venue/gamma/types.js';
import { replaceEventTags } from './event-tags.js';
import { chunks, eventRow, marketRow } from './rows.js';
import type { StoredCatalog } from './state.js';

// Samples serve the 24 h chart and volume windows; older ones are dropped (with a day's margin), a
// day's partition at a time, so up to a day more may still be stored: readers ask for the range they show.
export const SAMPLE_RETENTION_MS = 48 * 3_600_000;

/**
 * Markets per refresh transaction. On PGlite every other query waits for the one connection while
 * a transaction holds it; measured (docs/PERFORMANCE.md "Catalog sync") as the size past which a
 * pass gets no faster.
 */
export const REFRESH_BATCH_MARKETS = 100;

// Columns the refresh takes from the venue. A market's `closed` and resolution status are not
// among them: flipping those is the sync's change detection (src/catalog/sync.ts), recorded once.
// `updated_at` is set only when one of these differs.
const EVENT_UPDATES = ['slug', 'title', 'description', 'image', 'icon', 'active', 'closed', 'archived', 'neg_risk']
  .concat(['start_date', 'end_date', 'volume', 'volume_24hr', 'liquidity']);
const MARKET_UPDATES = ['event_id', 'position', 'question', 'slug', 'group_item_title', 'condition_id', 'outcomes']
  .concat(['outcome_prices', 'clob_token_ids', 'yes_token_id', 'image', 'active', 'archived', 'volume', 'volume_24hr'])
  .concat(['liquidity', 'best_bid', 'best_ask', 'last_trade_price', 'end_date']);

const camel = (column: string) => column.replace(/_(\w)/g, (_, ch: string) => ch.toUpperCase());

/** `set` and `where` of an upsert that rewrites `columns` only when one of them differs from the venue's. */
function refreshOf(table: string, columns: string[]) {
  const list = (prefix: string) => columns.map((c) => `${prefix}.${c}`).join(', ');
  return {
    set: Object.fromEntries([...columns, 'updated_at'].map((c) => [camel(c), sql.raw(`excluded.${c}`)])),
    setWhere: sql.raw(`(${list(table)}) is distinct from (${list('excluded')})`),
  };
}
const EVENT_REFRESH = refreshOf('catalog_events', EVENT_UPDATES);
const MARKET_REFRESH = refreshOf('catalog_markets', MARKET_UPDATES);

/**
 * Brings the already-stored events and markets up to the venue's data, samples every fetched market
 * and drops old samples, in transactions of about `REFRESH_BATCH_MARKETS` markets each (whole events), so
 * other work gets the database between them. Nothing here records a change: a pass that stops
 * half-way leaves the rest stale until the next pass, which refreshes everything again.
 */
export async function refreshCatalog(
  on: Db,
  fetched: VenueEvent[],
  stored: StoredCatalog,
  now: Date,
  options: { logger: Logger },
): Promise<void> {
  // First, so that a batch which keeps failing does not stop the pruning and grow the table pass
  // after pass. Tomorrow's partition is made a day ahead, so a step that fails (it is logged and
  // repeated every pass) costs no samples unless it fails all day.
  try {
    await keepDays(on, 'market_samples', { days: [now.getTime(), now.getTime() + DAY_MS], dropBeforeMs: now.getTime() - SAMPLE_RETENTION_MS });
  } catch (err) {
    options.logger.warn({ err }, 'market sample partitions: creating or dropping a day failed');
  }
  let batch = 0;
  const failures: unknown[] = [];
  for (const events of eventBatches(fetched, REFRESH_BATCH_MARKETS)) {
    if (batch++ > 0) await yieldTurn();
    try {
      await inTransaction(on, (tx) => refreshBatch(tx, events, stored, now));
    } catch (err) {
      // The batches after it still run: one that keeps failing must not leave every later event
      // without its samples and end dates, pass after pass. The pass fails once they are done.
      options.logger.error({ err, batch, firstEventId: events[0]!.id, events: events.length }, 'catalog refresh batch failed');
      failures.push(err);
    }
  }
  if (failures.length > 0) throw failures[0];
}

/**
 * Upserts the stored ones among `events` and their markets (only those in `marketIds` when given)
 * with the venue's data; rows that already match are not rewritten. No samples, no changes.
 */
export async function refreshRows(tx: Tx, events: VenueEvent[], stored: StoredCatalog, now: Date, marketIds?: ReadonlySet<string>): Promise<void> {
  const knownEvents = events.filter((e) => stored.eventIds.has(e.id));
  for (const batch of chunks(knownEvents.map((e) => eventRow(e, now)))) {
    await tx.insert(catalogEvents).values(batch).onConflictDoUpdate({ target: catalogEvents.id, ...EVENT_REFRESH });
  }
  // `event_id` and `position` are among the columns: the change transaction moved the markets the
  // venue moved (src/catalog/changed-rows.ts), and this writes the same.
  const wanted = (id: string) => stored.marketEvents.has(id) && (marketIds === undefined || marketIds.has(id));
  const knownMarkets = events.flatMap((e) => e.markets.flatMap((m, i) => (wanted(m.id) ? [marketRow(m, e.id, i, now)] : [])));
  for (const batch of chunks(knownMarkets, 300)) {
    await tx.insert(catalogMarkets).values(batch).onConflictDoUpdate({ target: catalogMarkets.id, ...MARKET_REFRESH });
  }
  await replaceEventTags(tx, knownEvents);
}

async function refreshBatch(tx: Tx, events: VenueEvent[], stored: StoredCatalog, now: Date): Promise<void> {
  await refreshRows(tx, events, stored, now);
  const samples = events.flatMap((e) =>
    e.markets.map((m) => ({ marketId: m.id, at: now, volume: m.volume, liquidity: m.liquidity, price: m.outcomePrices[0] ?? null })),
  );
  for (const batch of chunks(samples, 1000)) await tx.insert(marketSamples).values(batch).onConflictDoNothing();
}

export const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Whole events, in groups of about `size` markets (an event larger than that is a group alone). */
export function* eventBatches(events: VenueEvent[], size: number): Generator<VenueEvent[]> {
  let batch: VenueEvent[] = [];
  let markets = 0;
  for (const e of events) {
    if (batch.length > 0 && markets + e.markets.length > size) {
      yield batch;
      batch = [];
      markets = 0;
    }
    batch.push(e);
    markets += e.markets.length;
  }
  if (batch.length > 0) yield batch;
}

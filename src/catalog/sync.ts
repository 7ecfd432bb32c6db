import { and, eq, inArray } from 'drizzle-orm';
import { inTransaction, notifyChange, type Database, type Tx } from '../db/client.js';
import { CATALOG_CHANGED } from '../db/coordination.js';
import { catalogChanges, catalogEvents, catalogMarkets, type CatalogChangeDetails } from '../db/schema/index.js';
import type { CatalogChangeKind } from '../domain/enums.js';
import type { Logger } from '../logger.js';
import type { GammaClient } from '../venue/gamma/client.js';
import type { VenueEvent } from '../venue/gamma/types.js';
import { announceAll, autoAddMatchingEvents, autoFetchNewMarkets } from './auto-add.js';
import { diffCatalog, type Found } from './diff.js';
import { eachMarketOnce } from './each-market-once.js';
import { moveMarkets, refreshChangedRows } from './changed-rows.js';
import { chunks } from './rows.js';
import { loadStoredCatalog } from './state.js';
import { insertNewRows, type Inserted } from './new-rows.js';
import { refreshCatalog } from './refresh.js';
import { insertFirstFill } from './first-fill.js';
import { recordFirstFill } from './sync-status.js';

export interface SyncDeps {
  database: Database;
  gamma: GammaClient;
  logger: Logger;
  now?: () => Date;
  /** Auto-added events stop at this watchlist size (config MAX_EVENTS_PER_WATCHLIST). */
  maxEventsPerWatchlist?: number;
}

export interface SyncReport {
  firstSync: boolean;
  events: number;
  markets: number;
  changes: Record<CatalogChangeKind, number>;
  watchlistsChanged: number;
}

/**
 * One pass over the venue's open catalog: store it, sample every market, record what opened and
 * closed since the last pass (each change once), and grow the watchlists that ask for it.
 * Until a first fill has finished, a pass records no openings: everything would be "new".
 * The writes are short transactions (the first fill's rows in batches, one for the changes, then
 * the refresh of the rows already stored in batches; docs/catalog.md "Sync"), so on PGlite other
 * work gets the connection between them.
 */
export async function syncCatalogOnce(deps: SyncDeps): Promise<SyncReport> {
  const { database, gamma, logger } = deps;
  const now = (deps.now ?? (() => new Date()))();
  const listed: VenueEvent[] = [];
  for await (const page of gamma.fetchOpenEvents()) listed.push(...page);
  const fetched = eachMarketOnce(listed, logger);
  const stored = await loadStoredCatalog(database, fetched);
  const firstSync = !stored.filled;
  const found = await diffCatalog(stored, fetched, { gamma, logger });
  // A first fill inserts its rows in batches before the change transaction, which then has none to insert.
  const known = firstSync ? await insertFirstFill(database, fetched, stored, now) : stored;

  // What makes changes, in one short transaction: the new rows (so an opening is recorded by the
  // transaction that inserted its row), the markets moved to another event, the rows the changes
  // name brought up to the venue's data (the engine builds the notices from them), the flips of
  // closings and resolutions, the change rows and the watchlists' growth. Its size follows what
  // changed, not the catalog's size.
  const recordPass = async (tx: Tx) => {
    const inserted = await insertNewRows(tx, fetched, known, now);
    const opened = firstSync ? { newEvents: [], newMarkets: [] } : openings(fetched, inserted);
    await moveMarkets(tx, fetched, known, now);
    await refreshChangedRows(tx, fetched, known, { found, newMarkets: opened.newMarkets }, now);
    const changes = await recordChanges(tx, opened, found, now);
    const newOpenEvents = opened.newEvents.map((e) => e.eventId);
    const added = await autoAddMatchingEvents(database, tx, newOpenEvents, deps.maxEventsPerWatchlist ?? 500);
    const fetchedInto = await autoFetchNewMarkets(tx, opened.newMarkets);
    const changed = new Set([...added, ...fetchedInto]);
    await announceAll(tx, changed);
    // Not on an empty listing: a venue answering nothing (or nothing this version can read) must
    // not leave an empty catalog marked filled, or the next pass would tell the whole venue as new.
    if (firstSync && known.eventIds.size > 0) await recordFirstFill(tx, now);
    await notifyChange(tx, CATALOG_CHANGED, 'sync');
    return { changes, watchlistsChanged: changed.size };
  };
  const report = await inTransaction(database.db, recordPass);
  // Titles, prices and volumes of the rows stored before this pass, and every fetched market's
  // sample, in short transactions of their own (the rows this pass inserted hold the venue's data).
  await refreshCatalog(database.db, fetched, stored, now, { logger });
  // Search answers read during the refresh are stale now (sent on commit of the notice alone).
  await notifyChange(database.db, CATALOG_CHANGED, 'sync');
  const result: SyncReport = {
    firstSync,
    events: fetched.length,
    markets: fetched.reduce((n, e) => n + e.markets.length, 0),
    ...report,
  };
  logger.info(result, 'catalog synced');
  return result;
}

interface Openings {
  newEvents: { eventId: string; marketIds: string[] }[];
  /** New open markets of events already known. */
  newMarkets: { eventId: string; marketId: string }[];
}

/** The open events and markets this pass inserted, in the venue's order; closed ones open nothing. */
function openings(fetched: VenueEvent[], inserted: Inserted): Openings {
  const found: Openings = { newEvents: [], newMarkets: [] };
  for (const e of fetched) {
    if (e.closed) continue;
    const marketIds = e.markets.filter((m) => !m.closed && inserted.marketIds.has(m.id)).map((m) => m.id);
    if (inserted.eventIds.has(e.id)) found.newEvents.push({ eventId: e.id, marketIds });
    else for (const marketId of marketIds) found.newMarkets.push({ eventId: e.id, marketId });
  }
  return found;
}

async function recordChanges(tx: Tx, opened: Openings, found: Found, now: Date): Promise<Record<CatalogChangeKind, number>> {
  const rows: { kind: CatalogChangeKind; eventId: string; marketId: string | null; detectedAt: Date; details?: CatalogChangeDetails }[] = [];
  for (const e of opened.newEvents) {
    rows.push({ kind: 'new_event', eventId: e.eventId, marketId: null, detectedAt: now });
    for (const marketId of e.marketIds) rows.push({ kind: 'new_market', eventId: e.eventId, marketId, detectedAt: now });
  }
  for (const m of opened.newMarkets) rows.push({ kind: 'new_market', eventId: m.eventId, marketId: m.marketId, detectedAt: now });

  // Before the closings: a market resolving also closes, and its resolution is told before the
  // closing stops its rules. Each is recorded once: only by the pass that flips the stored status.
  for (const r of found.resolutions) {
    const flipped = await tx
      .update(catalogMarkets)
      .set({ umaResolutionStatus: r.status, resolvedOutcome: r.outcome, updatedAt: now })
      .where(and(eq(catalogMarkets.id, r.marketId), eq(catalogMarkets.umaResolutionStatus, r.previous)))
      .returning({ id: catalogMarkets.id });
    if (flipped.length === 0) continue;
    const details = { resolutionStatus: r.status, previousResolutionStatus: r.previous, ...(r.outcome === null ? {} : { outcome: r.outcome }) };
    rows.push({ kind: 'resolution', eventId: r.eventId, marketId: r.marketId, detectedAt: now, details });
  }

  // Closings count only when this pass is the one that flips the row: each is recorded once.
  for (const ids of chunks(found.closedMarkets.map((m) => m.marketId), 1000)) {
    const closed = await tx
      .update(catalogMarkets)
      .set({ closed: true, closedAt: now, updatedAt: now })
      .where(and(inArray(catalogMarkets.id, ids), eq(catalogMarkets.closed, false)))
      .returning({ id: catalogMarkets.id, eventId: catalogMarkets.eventId });
    for (const m of closed.sort(byId)) rows.push({ kind: 'closed_market', eventId: m.eventId, marketId: m.id, detectedAt: now });
  }
  for (const ids of chunks(found.closedEvents, 1000)) {
    const closed = await tx
      .update(catalogEvents)
      .set({ closed: true, closedAt: now, updatedAt: now })
      .where(and(inArray(catalogEvents.id, ids), eq(catalogEvents.closed, false)))
      .returning({ id: catalogEvents.id });
    for (const e of closed.sort(byId)) rows.push({ kind: 'closed_event', eventId: e.id, marketId: null, detectedAt: now });
  }
  for (const batch of chunks(rows, 1000)) await tx.insert(catalogChanges).values(batch);
  const counts: Record<CatalogChangeKind, number> = { new_event: 0, new_market: 0, closed_market: 0, closed_event: 0, resolution: 0 };
  for (const r of rows) counts[r.kind]++;
  return counts;
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

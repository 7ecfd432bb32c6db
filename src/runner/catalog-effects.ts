import { and, asc, eq, sql } from 'drizzle-orm';
import type { Database, Db } from '../db/client.js';
import { catalogEvents, catalogMarkets, subscriptionChannels, subscriptions, watchlists } from '../db/schema/index.js';
import { CATALOG_RULE_TYPE } from '../domain/enums.js';
import { armedOutcome, statusColumns, statusOf, transition } from '../domain/subscription-status.js';
import { writeNotificationOnce, type BatchingOptions } from '../delivery/enqueue.js';
import { noticeSubject, subscriptionStatusPayload, type ChannelRow, type MarketRow, type StatusPayloadBase } from '../delivery/payloads.js';
import { announceSubscriptionChange } from '../services/watchlists/changes.js';
import type { CatalogChange, Closing } from './catalog-notices.js';

// The database side of a catalog change: what it reads (the event, the catalog rules it concerns)
// and what it writes (their notices and status, the closings). Decisions come from catalog-notices.ts.

/** What a status notice of a rule names and where it goes: its watchlist's name and its channels in order. */
export async function noticeTargets(tx: Db, sub: { id: string; watchlistId: string }): Promise<{ watchlistName: string; channels: ChannelRow[] }> {
  const [wl] = await tx.select({ name: watchlists.name }).from(watchlists).where(eq(watchlists.id, sub.watchlistId));
  const channels: ChannelRow[] = await tx
    .select({ position: subscriptionChannels.position, type: subscriptionChannels.type, settings: subscriptionChannels.settings })
    .from(subscriptionChannels)
    .where(eq(subscriptionChannels.subscriptionId, sub.id))
    .orderBy(asc(subscriptionChannels.position));
  return { watchlistName: wl?.name ?? '', channels };
}

/** The changed event with its markets in display order; undefined when the event is gone. */
export async function loadEvent(db: Db, eventId: string) {
  const [event] = await db.select().from(catalogEvents).where(eq(catalogEvents.id, eventId));
  if (!event) return undefined;
  const markets: MarketRow[] = await db
    .select()
    .from(catalogMarkets)
    .where(eq(catalogMarkets.eventId, eventId))
    .orderBy(asc(catalogMarkets.position), asc(catalogMarkets.id));
  return { event, markets };
}

/** The armed catalog rules a change concerns: on its event, its market, or a watchlist holding the event. */
export async function matchingSubscriptions(database: Database, change: CatalogChange): Promise<string[]> {
  const rows = await database.rows<{ id: string }>(sql`
    select s.id from subscriptions s
    where s.enabled and s.type = ${CATALOG_RULE_TYPE} and (
      (s.scope = 'Event' and s.event_id = ${change.eventId})
      or (s.scope = 'Market' and s.market_id = ${change.marketId})
      or (s.scope = 'Watchlist' and exists (
        select 1 from watchlist_events we where we.watchlist_id = s.watchlist_id and we.event_id = ${change.eventId})))
    order by s.id`);
  return rows.map((r) => r.id);
}

/**
 * One notice to one catalog rule, with its status change, in one transaction. The rule is locked
 * and checked again (it may have been paused since it was matched); a replayed notice (its dedupe
 * key written before) changes nothing.
 */
export async function notifySubscription(
  db: Db,
  subscriptionId: string,
  base: StatusPayloadBase,
  detectedAt: Date,
  batching?: BatchingOptions,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [sub] = await tx.select().from(subscriptions).where(eq(subscriptions.id, subscriptionId)).for('update');
    const next = sub && transition(statusOf(sub), { kind: 'catalog notified' });
    if (!sub || next?.kind !== 'change') return;
    const { watchlistName, channels } = await noticeTargets(tx, sub);
    const id = await writeNotificationOnce(tx, {
      accountId: sub.accountId,
      subscriptionId: sub.id,
      type: base.type,
      payload: subscriptionStatusPayload(base, sub, watchlistName, channels),
      dedupeKey: `${sub.id}:${noticeSubject(base)}`,
      channels,
    }, batching);
    if (id === null) return;
    await tx
      .update(subscriptions)
      .set({ ...statusColumns(next.status), triggerCount: sql`${subscriptions.triggerCount} + 1`, lastTriggeredAt: detectedAt })
      .where(eq(subscriptions.id, sub.id));
  });
}

/** Stops the armed rules a closing concerns, and tells the engines so they drop them. */
export async function closeSubscriptions(db: Db, closing: Closing): Promise<void> {
  const target =
    closing.scope === 'Event'
      ? and(eq(subscriptions.scope, 'Event'), eq(subscriptions.eventId, closing.eventId))
      : and(eq(subscriptions.scope, 'Market'), eq(subscriptions.marketId, closing.marketId));
  await db.transaction(async (tx) => {
    const closed = await tx
      .update(subscriptions)
      .set(statusColumns(armedOutcome({ kind: closing.kind })))
      .where(and(target, eq(subscriptions.enabled, true)))
      .returning({ id: subscriptions.id });
    for (const { id } of closed) await announceSubscriptionChange(tx, id);
  });
}

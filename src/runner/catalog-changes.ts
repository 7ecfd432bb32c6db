import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { catalogChanges, catalogEvents, catalogMarkets, changeReaderPositions, subscriptions, watchlists } from '../db/schema/index.js';
import {
  CATALOG_RULE_TYPE,
  type CatalogChangeKind,
  type EventStatusScope,
  type EventStatusTrigger,
} from '../domain/enums.js';
import type { Logger } from '../logger.js';
import { announceSubscriptionChange } from '../services/watchlists/changes.js';
import { loadChannels, lockSubscription } from './fire.js';
import { insertNotificationWithDeliveries, payloadChannels } from './notify.js';
import { fanOutToDemoWebhooks } from '../delivery/demo-fanout.js';
import { venueEncodedOutcomes } from '../domain/outcomes.js';
import { armedOutcome, statusColumns, statusOf, transition } from '../domain/subscription-status.js';

export interface CatalogChange {
  id: number;
  kind: CatalogChangeKind;
  eventId: string;
  marketId: string | null;
  detectedAt: Date;
}

export interface CatalogChangeConsumerOptions {
  database: Database;
  logger: Logger;
  /** Told about every event whose markets changed, so price rules of wide scopes follow. */
  onEventChanged?: (eventId: string) => Promise<void> | void;
  pollIntervalMs?: number;
  /**
   * Start after this change id. Default: where this reader left off (its position is stored after
   * every change, so changes made while no engine ran are handled at the next start), or, the
   * first time, the newest change (older ones are history).
   */
  afterId?: number;
}

/** Every engine process reads all changes under this one name; replays write nothing new (dedupe keys). */
const READER = 'engine';

export interface CatalogChangeConsumer {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Processes every change not yet seen, in id order; answers how many. */
  processPending(): Promise<number>;
  readonly lastId: number;
}

export type MarketRow = typeof catalogMarkets.$inferSelect;
export type EventRow = typeof catalogEvents.$inferSelect;

export interface StatusNotice {
  scope: EventStatusScope;
  trigger: EventStatusTrigger;
  market: MarketRow | undefined;
}

/** The event status payload's fields that do not depend on who receives it. */
export function statusPayload(change: CatalogChange, event: EventRow, notice: StatusNotice) {
  const m = notice.market;
  return {
    type: 'event_status_notification' as const,
    eventStatusScope: notice.scope,
    triggerType: notice.trigger,
    createdAt: new Date().toISOString(),
    fields: {
      eventId: event.id,
      eventTitle: event.title,
      ...(m
        ? {
            marketId: m.id,
            marketQuestion: m.question,
            ...venueEncodedOutcomes(m),
          }
        : {}),
      polymarketSlug: event.slug,
      detectedAt: change.detectedAt.toISOString(),
      detectedAtMs: change.detectedAt.getTime(),
    },
  };
}

/** What a change announces (spec: Events, event status notification kinds and rules). */
export function noticesFor(change: CatalogChange, markets: readonly MarketRow[]): StatusNotice[] {
  const market = markets.find((m) => m.id === change.marketId);
  switch (change.kind) {
    case 'new_event':
      return markets.map((m) => ({ scope: 'Market', trigger: 'Open', market: m }));
    case 'new_market':
      return market ? [{ scope: 'Market', trigger: 'Open', market }] : [];
    case 'closed_market':
      return market ? [{ scope: 'Market', trigger: 'Closed', market }] : [];
    case 'closed_event':
      return [{ scope: 'Event', trigger: 'Closed', market: markets.length === 1 ? markets[0] : undefined }];
  }
}

export function createCatalogChangeConsumer(options: CatalogChangeConsumerOptions): CatalogChangeConsumer {
  const { database, logger } = options;
  const db = database.db;
  let lastId = options.afterId ?? -1;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function matchingSubscriptions(change: CatalogChange): Promise<string[]> {
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

  async function notify(subscriptionId: string, change: CatalogChange, event: EventRow, notice: StatusNotice): Promise<void> {
    await db.transaction(async (tx) => {
      const sub = await lockSubscription(tx, subscriptionId);
      const next = sub && transition(statusOf(sub), { kind: 'catalog notified' });
      if (!sub || next?.kind !== 'change') return;
      const [wl] = await tx.select({ name: watchlists.name }).from(watchlists).where(eq(watchlists.id, sub.watchlistId));
      const channels = await loadChannels(tx, sub.id);
      const m = notice.market;
      const base = statusPayload(change, event, notice);
      const payload: Record<string, unknown> = {
        type: base.type,
        userId: sub.accountId,
        eventStatusScope: base.eventStatusScope,
        triggerType: base.triggerType,
        createdAt: base.createdAt,
        subscriptionId: sub.id,
        watchlistId: sub.watchlistId,
        watchlistName: wl?.name ?? '',
        ...base.fields,
        channels: payloadChannels(channels),
      };
      const id = await insertNotificationWithDeliveries(tx, {
        accountId: sub.accountId,
        subscriptionId: sub.id,
        type: 'event_status_notification',
        payload,
        dedupeKey: `${sub.id}:${notice.scope}:${notice.trigger}:${m?.id ?? event.id}`,
        channels,
      });
      if (id === null) return;
      await tx
        .update(subscriptions)
        .set({ ...statusColumns(next.status), triggerCount: sql`${subscriptions.triggerCount} + 1`, lastTriggeredAt: change.detectedAt })
        .where(eq(subscriptions.id, sub.id));
    });
  }

  /** Event closes → its Event-scoped rules stop; market closes → its Market-scoped rules stop. */
  async function close(change: CatalogChange): Promise<void> {
    let where;
    let closing: 'event closed' | 'market closed';
    if (change.kind === 'closed_event') {
      where = and(eq(subscriptions.scope, 'Event'), eq(subscriptions.eventId, change.eventId));
      closing = 'event closed';
    } else if (change.kind === 'closed_market' && change.marketId) {
      where = and(eq(subscriptions.scope, 'Market'), eq(subscriptions.marketId, change.marketId));
      closing = 'market closed';
    } else return;
    await db.transaction(async (tx) => {
      const closed = await tx
        .update(subscriptions)
        .set(statusColumns(armedOutcome({ kind: closing })))
        .where(and(where, eq(subscriptions.enabled, true)))
        .returning({ id: subscriptions.id });
      for (const { id } of closed) await announceSubscriptionChange(tx, id);
    });
  }

  async function handle(change: CatalogChange): Promise<void> {
    const [event] = await db.select().from(catalogEvents).where(eq(catalogEvents.id, change.eventId));
    if (event) {
      const markets = await db
        .select()
        .from(catalogMarkets)
        .where(eq(catalogMarkets.eventId, change.eventId))
        .orderBy(asc(catalogMarkets.position), asc(catalogMarkets.id));
      const notices = noticesFor(change, markets);
      for (const notice of notices) await fanOutToDemoWebhooks(db, statusPayload(change, event, notice), notice);
      if (notices.length > 0) {
        for (const subscriptionId of await matchingSubscriptions(change)) {
          for (const notice of notices) await notify(subscriptionId, change, event, notice);
        }
      }
    }
    await close(change);
    if (change.kind !== 'closed_event') await options.onEventChanged?.(change.eventId);
  }

  /** Where this reader left off; the first time, the newest change, stored at once so a stop before any change loses nothing. */
  async function storedPosition(): Promise<number> {
    const [stored] = await db.select().from(changeReaderPositions).where(eq(changeReaderPositions.reader, READER));
    if (stored) return stored.lastChangeId;
    const [row] = await database.rows<{ max: number | string | null }>(sql`select max(id) as max from catalog_changes`);
    const newest = Number(row?.max ?? 0);
    await savePosition(newest);
    return newest;
  }

  /** Never moves back: another engine process may be further on. */
  async function savePosition(id: number): Promise<void> {
    await db
      .insert(changeReaderPositions)
      .values({ reader: READER, lastChangeId: id })
      .onConflictDoUpdate({
        target: changeReaderPositions.reader,
        set: { lastChangeId: sql`greatest(${changeReaderPositions.lastChangeId}, excluded.last_change_id)`, updatedAt: sql`now()` },
      });
  }

  async function run(): Promise<number> {
    if (lastId < 0) lastId = await storedPosition();
    let done = 0;
    for (;;) {
      const batch = await db.select().from(catalogChanges).where(gt(catalogChanges.id, lastId)).orderBy(asc(catalogChanges.id)).limit(200);
      if (batch.length === 0) return done;
      for (const change of batch) {
        await handle(change);
        lastId = change.id;
        await savePosition(lastId);
        done++;
      }
    }
  }

  const consumer: CatalogChangeConsumer = {
    async start() {
      await consumer.processPending();
      timer = setInterval(() => {
        consumer.processPending().catch((error: unknown) => logger.error({ err: error }, 'catalog changes failed'));
      }, options.pollIntervalMs ?? 2000);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => 0);
    },
    processPending() {
      // One pass at a time; a caller arriving mid-pass waits for it and then runs its own.
      const next = (running ?? Promise.resolve(0)).catch(() => 0).then(run);
      running = next;
      return next;
    },
    get lastId() {
      return lastId;
    },
  };
  return consumer;
}

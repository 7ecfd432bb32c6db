import { asc, eq, sql } from 'drizzle-orm';
import { isUniqueViolation, type Queryable, type Tx } from '../../db/client.js';
import {
  catalogEvents,
  catalogMarkets,
  subscriptionChannels,
  subscriptionMarketState,
  subscriptions,
  watchlists,
} from '../../db/schema/index.js';
import type { Firing } from '../rules.js';
import { insertNotificationWithDeliveries, payloadChannels, type ChannelRow } from './notify.js';

export interface FiringContext {
  /** When the venue data behind the price was received (ms). */
  receivedAtMs: number;
  /** The raw venue message, passed through as `polymarketSourceEvent`. */
  sourceEvent?: unknown;
  /** The venue's own timestamp of the price change (ms), when known. */
  sourceTimestampMs?: number;
}

export type FireOutcome = 'written' | 'duplicate' | 'skipped';

export const priceDedupeKey = (f: Pick<Firing, 'subscriptionId' | 'marketId' | 'atMs'>) =>
  `${f.subscriptionId}:${f.marketId}:${f.atMs}`;

/** Locks the subscription row; undefined when it is gone. */
export async function lockSubscription(tx: Tx, subscriptionId: string) {
  const [sub] = await tx.select().from(subscriptions).where(eq(subscriptions.id, subscriptionId)).for('update');
  return sub;
}

export async function loadChannels(tx: Tx, subscriptionId: string): Promise<ChannelRow[]> {
  return tx
    .select({ position: subscriptionChannels.position, type: subscriptionChannels.type, settings: subscriptionChannels.settings })
    .from(subscriptionChannels)
    .where(eq(subscriptionChannels.subscriptionId, subscriptionId))
    .orderBy(asc(subscriptionChannels.position));
}

/**
 * Writes one firing atomically (its own transaction, or a savepoint in the caller's): the subscription's new status and counters, the
 * (subscription, market) last firing, the price_notification and its deliveries.
 */
export async function writeFiring(on: Queryable, firing: Firing, ctx: FiringContext): Promise<FireOutcome> {
  try {
    // A savepoint when `on` is a transaction: the runner writes a batch of firings in one commit.
    return await on.transaction(async (tx) => {
      const sub = await lockSubscription(tx, firing.subscriptionId);
      if (!sub || !sub.enabled) return 'skipped';
      const [where] = await tx
        .select({ market: catalogMarkets, event: catalogEvents, watchlistName: watchlists.name })
        .from(catalogMarkets)
        .innerJoin(catalogEvents, eq(catalogEvents.id, catalogMarkets.eventId))
        .innerJoin(watchlists, eq(watchlists.id, sub.watchlistId))
        .where(eq(catalogMarkets.id, firing.marketId));
      if (!where) return 'skipped';
      const channels = await loadChannels(tx, sub.id);
      const detectedAt = new Date(firing.atMs);
      const payload: Record<string, unknown> = {
        type: 'price_notification',
        userId: sub.accountId,
        createdAt: new Date().toISOString(),
        subscriptionId: sub.id,
        watchlistId: sub.watchlistId,
        watchlistName: where.watchlistName,
        eventId: where.event.id,
        eventTitle: where.event.title,
        marketId: where.market.id,
        marketQuestion: where.market.question,
        polymarketSlug: where.event.slug,
        clobTokenId: firing.token,
        subscriptionScope: sub.scope,
        subscriptionTypeConfig: { type: sub.type, config: { params: { threshold_percent: sub.thresholdPercent } } },
        triggerType: sub.triggerType,
        detectedValue: firing.price,
        detectedAt: detectedAt.toISOString(),
        detectedAtMs: firing.atMs,
        sentFromPolymarketAtMs: ctx.receivedAtMs,
        channels: payloadChannels(channels),
        detectionDetails: {
          detectedValue: firing.price,
          detectedTimeMs: firing.atMs,
          priceChangeTimeMs: String(ctx.sourceTimestampMs ?? ctx.receivedAtMs),
          ...(firing.previousPrice !== null ? { previousValue: firing.previousPrice } : {}),
          ...(firing.levels ? { levels: [...firing.levels] } : {}),
        },
        ...(ctx.sourceEvent !== undefined ? { polymarketSourceEvent: ctx.sourceEvent } : {}),
      };
      const id = await insertNotificationWithDeliveries(tx, {
        accountId: sub.accountId,
        subscriptionId: sub.id,
        type: 'price_notification',
        payload,
        dedupeKey: priceDedupeKey(firing),
        channels,
      });
      if (id === null) return 'duplicate';
      const oneTime = sub.triggerType === 'One Time';
      await tx
        .update(subscriptions)
        .set({
          enabled: !oneTime,
          statusReason: 'Triggered',
          triggerCount: sql`${subscriptions.triggerCount} + 1`,
          lastTriggeredAt: detectedAt,
        })
        .where(eq(subscriptions.id, sub.id));
      await tx
        .insert(subscriptionMarketState)
        .values({ subscriptionId: sub.id, marketId: firing.marketId, lastFiredAt: detectedAt })
        .onConflictDoUpdate({
          target: [subscriptionMarketState.subscriptionId, subscriptionMarketState.marketId],
          set: { lastFiredAt: detectedAt },
        });
      return 'written';
    });
  } catch (error) {
    if (isUniqueViolation(error)) return 'duplicate';
    throw error;
  }
}

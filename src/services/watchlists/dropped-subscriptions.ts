import { and, eq, inArray, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { subscriptions } from '../../db/schema/index.js';
import { armedOutcome, statusColumns } from '../../domain/subscription-status.js';
import { announceSubscriptionChange } from './changes.js';

/** The armed subscriptions a removal pauses (see below); also what a removal's confirmation counts. */
export function droppedSubscriptions(watchlistId: string, eventId: string, marketIds?: readonly string[]): SQL | undefined {
  const target: SQL | undefined =
    marketIds === undefined
      ? inArray(subscriptions.scope, ['Event', 'Market'])
      : and(eq(subscriptions.scope, 'Market'), inArray(subscriptions.marketId, [...marketIds]));
  return and(eq(subscriptions.watchlistId, watchlistId), eq(subscriptions.eventId, eventId), eq(subscriptions.enabled, true), target);
}

/**
 * Pauses the armed subscriptions aimed at what was just taken out of a watchlist: the event's
 * Event- and Market-scope ones (`marketIds` absent), or the Market-scope ones on the markets
 * dropped from the event's selection. They stay listed with their history, paused as by the user
 * (src/domain/subscription-status.ts); ones already off keep their reason.
 * Runs in the removal's transaction, so the engine hears of both at once.
 */
export async function pauseDroppedSubscriptions(
  tx: Tx,
  watchlistId: string,
  eventId: string,
  marketIds?: readonly string[],
): Promise<void> {
  if (marketIds !== undefined && marketIds.length === 0) return;
  const paused = await tx
    .update(subscriptions)
    .set({ ...statusColumns(armedOutcome({ kind: 'removed from watchlist' })), updatedAt: new Date() })
    .where(droppedSubscriptions(watchlistId, eventId, marketIds))
    .returning({ id: subscriptions.id });
  for (const { id } of paused) await announceSubscriptionChange(tx, id);
}

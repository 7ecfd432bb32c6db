import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { subscriptions, watchlistEvents } from '../../db/schema/index.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { conflict } from '../errors.js';
import { parseInput } from '../validate.js';
import { announceSubscriptionChange } from '../watchlists/changes.js';
import { requireOwnedSubscription } from './owned.js';
import { SubscriptionIdInput } from './schemas.js';
import { loadSubscriptionView, type SubscriptionView } from './view.js';

type Args = { ctx: ServiceContext; input: SubscriptionIdInput };

async function setStatus(ctx: ServiceContext, input: SubscriptionIdInput, enabled: boolean, reason: 'Paused by user' | 'Restarted by user') {
  const { subscriptionId } = parseInput(SubscriptionIdInput, input);
  return withTransaction(ctx, async (tx) => {
    const sub = await requireOwnedSubscription(tx, ctx.account.id, subscriptionId);
    if (enabled) await requireEventStillWatched(tx, sub);
    await tx
      .update(subscriptions)
      .set({ enabled, statusReason: reason, updatedAt: new Date(), revision: sql`${subscriptions.revision} + 1` })
      .where(eq(subscriptions.id, subscriptionId));
    await announceSubscriptionChange(tx, subscriptionId);
    return (await loadSubscriptionView(tx, ctx.account.id, subscriptionId))!;
  });
}

// Removing an event from a watchlist paused its subscriptions; re-arming one needs the event back
// first, as creating it would.
async function requireEventStillWatched(tx: Tx, sub: { watchlistId: string; eventId: string | null }) {
  if (sub.eventId === null) return;
  const [held] = await tx
    .select({ eventId: watchlistEvents.eventId })
    .from(watchlistEvents)
    .where(and(eq(watchlistEvents.watchlistId, sub.watchlistId), eq(watchlistEvents.eventId, sub.eventId)));
  if (!held) {
    throw conflict(`Event ${sub.eventId} is no longer in this subscription's watchlist; add it back to the watchlist before restarting`, 'watchlist event');
  }
}

export const pauseSubscription = ({ ctx, input }: Args): Promise<SubscriptionView> =>
  setStatus(ctx, input, false, 'Paused by user');

/** Re-arms the rule; its crossing reference becomes the last known price (the engine's job). */
export const restartSubscription = ({ ctx, input }: Args): Promise<SubscriptionView> =>
  setStatus(ctx, input, true, 'Restarted by user');

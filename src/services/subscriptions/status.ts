import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { subscriptions, watchlistEvents } from '../../db/schema/index.js';
import { statusColumns, statusOf, transition, type StatusEvent } from '../../domain/subscription-status.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { conflict } from '../errors.js';
import { parseInput } from '../validate.js';
import { announceSubscriptionChange } from '../watchlists/changes.js';
import { requireOwnedSubscription } from './owned.js';
import { SubscriptionIdInput } from './schemas.js';
import { loadSubscriptionView, type SubscriptionView } from './view.js';

type Args = { ctx: ServiceContext; input: SubscriptionIdInput };

async function setStatus(ctx: ServiceContext, input: SubscriptionIdInput, act: 'paused by user' | 'restarted by user') {
  const { subscriptionId } = parseInput(SubscriptionIdInput, input);
  return withTransaction(ctx, async (tx) => {
    const sub = await requireOwnedSubscription(tx, ctx.account.id, subscriptionId);
    const event: StatusEvent = act === 'restarted by user' ? { kind: act, eventStillWatched: await eventStillWatched(tx, sub) } : { kind: act };
    const next = transition(statusOf(sub), event);
    if (next.kind === 'refused') {
      throw conflict(`Event ${sub.eventId} is no longer in this subscription's watchlist; add it back to the watchlist before restarting`, 'watchlist event');
    }
    if (next.kind === 'change') {
      await tx
        .update(subscriptions)
        .set({ ...statusColumns(next.status), updatedAt: new Date() })
        .where(eq(subscriptions.id, subscriptionId));
    }
    await announceSubscriptionChange(tx, subscriptionId);
    return (await loadSubscriptionView(tx, ctx.account.id, subscriptionId))!;
  });
}

// Removing an event from a watchlist paused its subscriptions; re-arming one needs the event back
// first, as creating it would.
async function eventStillWatched(tx: Tx, sub: { watchlistId: string; eventId: string | null }): Promise<boolean> {
  if (sub.eventId === null) return true;
  const [held] = await tx
    .select({ eventId: watchlistEvents.eventId })
    .from(watchlistEvents)
    .where(and(eq(watchlistEvents.watchlistId, sub.watchlistId), eq(watchlistEvents.eventId, sub.eventId)));
  return held !== undefined;
}

export const pauseSubscription = ({ ctx, input }: Args): Promise<SubscriptionView> => setStatus(ctx, input, 'paused by user');

/** Re-arms the rule; its crossing reference becomes the last known price (the engine's job). */
export const restartSubscription = ({ ctx, input }: Args): Promise<SubscriptionView> => setStatus(ctx, input, 'restarted by user');

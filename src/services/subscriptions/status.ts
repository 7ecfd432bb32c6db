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

type Act = 'paused by user' | 'restarted by user';

async function setStatus(ctx: ServiceContext, input: SubscriptionIdInput, act: Act, onlyToggle = false) {
  const { subscriptionId } = parseInput(SubscriptionIdInput, input);
  return withTransaction(ctx, async (tx) => {
    const sub = await requireOwnedSubscription(tx, ctx.account.id, subscriptionId);
    // Chat's buttons toggle: an alert already as asked is left alone, and the engine is not told
    // (a restart would re-arm its crossing reference and could fire it again).
    if (onlyToggle && sub.enabled === (act === 'restarted by user')) {
      return { view: (await loadSubscriptionView(tx, ctx.account.id, subscriptionId))!, changed: false };
    }
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
    return { view: (await loadSubscriptionView(tx, ctx.account.id, subscriptionId))!, changed: true };
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

export const pauseSubscription = async ({ ctx, input }: Args): Promise<SubscriptionView> => (await setStatus(ctx, input, 'paused by user')).view;

/** Re-arms the rule; its crossing reference becomes the last known price (the engine's job). */
export const restartSubscription = async ({ ctx, input }: Args): Promise<SubscriptionView> => (await setStatus(ctx, input, 'restarted by user')).view;

/**
 * Chat's Pause and Resume: idempotent. An alert that is already paused (or active) changes
 * nothing, and `changed` says so, so that an old button sends nothing.
 */
export const setAlertActive = ({ ctx, input, active }: Args & { active: boolean }): Promise<{ view: SubscriptionView; changed: boolean }> =>
  setStatus(ctx, input, active ? 'restarted by user' : 'paused by user', true);

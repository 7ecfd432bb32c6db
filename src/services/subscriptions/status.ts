import { eq, sql } from 'drizzle-orm';
import { subscriptions } from '../../db/schema/index.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { parseInput } from '../validate.js';
import { announceSubscriptionChange } from '../watchlists/changes.js';
import { requireOwnedSubscription } from './owned.js';
import { SubscriptionIdInput } from './schemas.js';
import { loadSubscriptionView, type SubscriptionView } from './view.js';

type Args = { ctx: ServiceContext; input: SubscriptionIdInput };

async function setStatus(ctx: ServiceContext, input: SubscriptionIdInput, enabled: boolean, reason: 'Paused by user' | 'Restarted by user') {
  const { subscriptionId } = parseInput(SubscriptionIdInput, input);
  return withTransaction(ctx, async (tx) => {
    await requireOwnedSubscription(tx, ctx.account.id, subscriptionId);
    await tx
      .update(subscriptions)
      .set({ enabled, statusReason: reason, updatedAt: new Date(), revision: sql`${subscriptions.revision} + 1` })
      .where(eq(subscriptions.id, subscriptionId));
    await announceSubscriptionChange(tx, subscriptionId);
    return (await loadSubscriptionView(tx, ctx.account.id, subscriptionId))!;
  });
}

export const pauseSubscription = ({ ctx, input }: Args): Promise<SubscriptionView> =>
  setStatus(ctx, input, false, 'Paused by user');

/** Re-arms the rule; its crossing reference becomes the last known price (the engine's job). */
export const restartSubscription = ({ ctx, input }: Args): Promise<SubscriptionView> =>
  setStatus(ctx, input, true, 'Restarted by user');

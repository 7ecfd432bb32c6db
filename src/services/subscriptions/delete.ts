import { eq } from 'drizzle-orm';
import { subscriptions } from '../../db/schema/index.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { parseInput } from '../validate.js';
import { announceSubscriptionChange } from '../watchlists/changes.js';
import { requireOwnedSubscription } from './owned.js';
import { SubscriptionIdInput } from './schemas.js';

export async function deleteSubscription({ ctx, input }: { ctx: ServiceContext; input: SubscriptionIdInput }): Promise<void> {
  const { subscriptionId } = parseInput(SubscriptionIdInput, input);
  await withTransaction(ctx, async (tx) => {
    await requireOwnedSubscription(tx, ctx.account.id, subscriptionId);
    await tx.delete(subscriptions).where(eq(subscriptions.id, subscriptionId));
    await announceSubscriptionChange(tx, subscriptionId);
  });
}

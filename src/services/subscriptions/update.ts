import { eq } from 'drizzle-orm';
import { subscriptions } from '../../db/schema/index.js';
import { statusColumns, statusOf, transition } from '../../domain/subscription-status.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { parseInput } from '../validate.js';
import { announceSubscriptionChange } from '../watchlists/changes.js';
import { checkChannels, writeChannels } from './channels.js';
import { requireOwnedSubscription } from './owned.js';
import { ruleColumns, storedTypeConfig } from './rule-fields.js';
import { SubscriptionIdInput, UpdateSubscriptionInput } from './schemas.js';
import { loadSubscriptionView, type SubscriptionView } from './view.js';

type Args = { ctx: ServiceContext; input: SubscriptionIdInput & { body: UpdateSubscriptionInput } };

/**
 * `PATCH /subscription/{id}`: the given fields replace the stored ones and the reason becomes
 * `Updated`; `enabled` is kept (a paused rule stays paused; restart re-arms it).
 */
export async function updateSubscription({ ctx, input }: Args): Promise<SubscriptionView> {
  const { subscriptionId } = parseInput(SubscriptionIdInput, input);
  const body = parseInput(UpdateSubscriptionInput, input.body);
  const channels = body.channels ? await checkChannels(ctx, body.channels) : undefined;
  return withTransaction(ctx, async (tx) => {
    const row = await requireOwnedSubscription(tx, ctx.account.id, subscriptionId);
    const typeConfig = body.subscriptionTypeConfig ?? storedTypeConfig(row);
    const triggerType = body.triggerType ?? row.triggerType;
    const interval = body.triggerInterval ?? row.triggerInterval;
    const next = transition(statusOf(row), { kind: 'updated' });
    await tx
      .update(subscriptions)
      .set({
        ...ruleColumns(typeConfig, triggerType, interval),
        ...(body.expiresAt !== undefined ? { expiresAt: body.expiresAt } : {}),
        ...(next.kind === 'change' ? statusColumns(next.status) : {}),
        updatedAt: new Date(),
      })
      .where(eq(subscriptions.id, subscriptionId));
    if (channels) await writeChannels(tx, subscriptionId, channels);
    await announceSubscriptionChange(tx, subscriptionId);
    return (await loadSubscriptionView(tx, ctx.account.id, subscriptionId))!;
  });
}

import type { z } from 'zod';
import { count, eq } from 'drizzle-orm';
import { subscriptions } from '../../db/schema/index.js';
import { CREATED, statusColumns } from '../../domain/subscription-status.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { limitExceeded } from '../errors.js';
import { newId } from '../ids.js';
import { parseInput } from '../validate.js';
import { announceSubscriptionChange } from '../watchlists/changes.js';
import { requireOwnedWatchlist } from '../watchlists/owned.js';
import { checkChannels, insertChannels } from './channels.js';
import { ruleColumns } from './rule-fields.js';
import { ChatSubscriptionInput, CreateSubscriptionInput } from './schemas.js';
import { resolveTarget } from './targets.js';
import { loadSubscriptionView, type SubscriptionView } from './view.js';

export async function createSubscription({ ctx, input }: { ctx: ServiceContext; input: CreateSubscriptionInput }): Promise<SubscriptionView> {
  return insertSubscription(ctx, parseInput(CreateSubscriptionInput, input));
}

/** A subscription a bot makes for the chat it was asked in: its channel may be the chat's own (ChatChannel). */
export async function createChatSubscription({ ctx, input }: { ctx: ServiceContext; input: ChatSubscriptionInput }): Promise<SubscriptionView> {
  return insertSubscription(ctx, parseInput(ChatSubscriptionInput, input));
}

async function insertSubscription(ctx: ServiceContext, body: z.output<typeof ChatSubscriptionInput>): Promise<SubscriptionView> {
  const channels = await checkChannels(ctx, body.channels);
  return withTransaction(ctx, async (tx) => {
    await requireOwnedWatchlist(tx, ctx.account.id, body.watchlistId);
    const [owned] = await tx.select({ n: count() }).from(subscriptions).where(eq(subscriptions.accountId, ctx.account.id));
    if ((owned?.n ?? 0) >= ctx.config.MAX_SUBSCRIPTIONS) {
      throw limitExceeded(`Subscription limit reached: an account may hold ${ctx.config.MAX_SUBSCRIPTIONS} subscriptions (MAX_SUBSCRIPTIONS)`, 'subscription', ctx.config.MAX_SUBSCRIPTIONS);
    }
    const target = await resolveTarget(tx, body.watchlistId, body.subscriptionScope, body.eventId, body.marketId);
    const id = newId();
    await tx.insert(subscriptions).values({
      id,
      accountId: ctx.account.id,
      watchlistId: body.watchlistId,
      scope: body.subscriptionScope,
      ...target,
      ...ruleColumns(body.subscriptionTypeConfig, body.triggerType, body.triggerInterval),
      expiresAt: body.expiresAt ?? null,
      ...statusColumns(CREATED),
    });
    await insertChannels(tx, id, channels);
    await announceSubscriptionChange(tx, id);
    return (await loadSubscriptionView(tx, ctx.account.id, id))!;
  });
}

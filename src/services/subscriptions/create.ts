import type { z } from 'zod';
import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/client.js';
import { SUBSCRIPTION_CHANGED } from '../../db/coordination.js';
import { subscriptions } from '../../db/schema/index.js';
import { CREATED, statusColumns } from '../../domain/subscription-status.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { limitExceeded } from '../errors.js';
import { newId } from '../ids.js';
import { parseInput } from '../validate.js';
import { requireOwnedWatchlist } from '../watchlists/owned.js';
import { channelRows, checkChannels } from './channels.js';
import { ruleColumns } from './rule-fields.js';
import { ChatSubscriptionInput, CreateSubscriptionInput } from './schemas.js';
import { targetFound, targetWanted } from './targets.js';
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
    // The lock is a statement of its own: the checks after it must see what a create that held it
    // before this one committed.
    await requireOwnedWatchlist(tx, ctx.account.id, body.watchlistId);
    const checked = await checkLimitAndTarget(tx, ctx.account.id, body);
    if (checked.held >= ctx.config.MAX_SUBSCRIPTIONS) {
      throw limitExceeded(`Subscription limit reached: an account may hold ${ctx.config.MAX_SUBSCRIPTIONS} subscriptions (MAX_SUBSCRIPTIONS)`, 'subscription', ctx.config.MAX_SUBSCRIPTIONS);
    }
    const target = targetFound(targetWanted(body.subscriptionScope, body.eventId, body.marketId), checked);
    const id = newId();
    const subscription = tx.insert(subscriptions).values({
      id,
      accountId: ctx.account.id,
      watchlistId: body.watchlistId,
      scope: body.subscriptionScope,
      ...target,
      ...ruleColumns(body.subscriptionTypeConfig, body.triggerType, body.triggerInterval),
      expiresAt: body.expiresAt ?? null,
      ...statusColumns(CREATED),
    });
    // The subscription, its channels and the change notice in one statement (the channels'
    // foreign key is checked at its end, when the subscription is there): each statement through
    // PGlite costs about a millisecond of the service's own CPU.
    await tx.execute(sql`with s as (${subscription.getSQL()}), c as (${channelRows(tx, id, channels).getSQL()})
      select pg_notify(${SUBSCRIPTION_CHANGED}, ${id})`);
    return (await loadSubscriptionView(tx, ctx.account.id, id))!;
  });
}

/** How many subscriptions the account holds, and whether the event and market asked for are where they must be, in one query. */
async function checkLimitAndTarget(tx: Tx, accountId: string, body: { watchlistId: string; eventId?: string | undefined; marketId?: string | undefined }) {
  const eventId = body.eventId ?? null;
  const marketId = body.marketId ?? null;
  const [row] = await queryRows<{ held: number; event_in_watchlist: boolean; market_in_event: boolean }>(
    tx,
    sql`select (select count(*) from subscriptions where account_id = ${accountId})::int as held,
      exists (select 1 from watchlist_events where watchlist_id = ${body.watchlistId} and event_id = ${eventId}) as event_in_watchlist,
      exists (select 1 from catalog_markets where id = ${marketId} and event_id = ${eventId}) as market_in_event`,
  );
  return { held: Number(row!.held), eventInWatchlist: row!.event_in_watchlist, marketInEvent: row!.market_in_event };
}

import { dbOf, type ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { parseInput } from '../validate.js';
import { requireOwnedWatchlist } from '../watchlists/owned.js';
import { WatchlistIdInput } from '../watchlists/schemas.js';
import { SUBSCRIPTION_NOT_FOUND } from './owned.js';
import { SubscriptionIdInput } from './schemas.js';
import { cachedAccountJson, type CachedJson } from './listing-cache.js';
import { loadSubscriptionView, loadSubscriptionViews, type SubscriptionView } from './view.js';

/** All of the caller's subscriptions, or one watchlist's (404 when that watchlist is not theirs). */
export async function listSubscriptions({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { watchlistId?: string };
}): Promise<SubscriptionView[]> {
  const db = dbOf(ctx);
  if (input.watchlistId === undefined) return loadSubscriptionViews(db, { accountId: ctx.account.id });
  const { watchlistId } = parseInput(WatchlistIdInput, input);
  await requireOwnedWatchlist(db, ctx.account.id, watchlistId);
  return loadSubscriptionViews(db, { accountId: ctx.account.id, watchlistId });
}

export async function getSubscription({ ctx, input }: { ctx: ServiceContext; input: SubscriptionIdInput }): Promise<SubscriptionView> {
  const { subscriptionId } = parseInput(SubscriptionIdInput, input);
  const view = await loadSubscriptionView(dbOf(ctx), ctx.account.id, subscriptionId);
  if (!view) throw notFound(SUBSCRIPTION_NOT_FOUND, 'subscription');
  return view;
}

/**
 * The API's answers, `{ subscriptions }` and `{ subscription }`, as JSON bytes kept in memory until
 * anything they show changes (listing-cache.ts): 100 subscriptions are ~4 ms of PGlite to build.
 */
export function listSubscriptionsJson(ctx: ServiceContext, input: { watchlistId?: string }): Promise<CachedJson> {
  const key = input.watchlistId === undefined ? 'all' : `watchlist ${parseInput(WatchlistIdInput, input).watchlistId}`;
  return cachedAccountJson(ctx, key, async () => ({ subscriptions: await listSubscriptions({ ctx, input }) }));
}

export function getSubscriptionJson(ctx: ServiceContext, input: SubscriptionIdInput): Promise<CachedJson> {
  const { subscriptionId } = parseInput(SubscriptionIdInput, input);
  return cachedAccountJson(ctx, `subscription ${subscriptionId}`, async () => ({ subscription: await getSubscription({ ctx, input }) }));
}

import { withTransaction, type ServiceContext } from '../context.js';
import { findMarket } from '../search/lookup.js';
import { parseInput } from '../validate.js';
import { findOrCreateDefaultWatchlist } from '../watchlists/default-watchlist.js';
import { putWatchlistEvent } from '../watchlists/events.js';
import { listWatchlists } from '../watchlists/read.js';
import { createChatSubscription } from './create.js';
import { CreateMarketAlertInput } from './schemas.js';
import type { SubscriptionView } from './view.js';

/**
 * Chat's "alert": a Market-scoped subscription on one market, of any rule type. It lives in a watchlist holding the
 * market's event; when none does, the event is first added to the default watchlist. One
 * transaction: a refused rule leaves no new watchlist and no added event behind.
 */
export async function createMarketAlert({ ctx, input }: { ctx: ServiceContext; input: CreateMarketAlertInput }): Promise<SubscriptionView> {
  const body = parseInput(CreateMarketAlertInput, input);
  return withTransaction(ctx, async (_tx, txCtx) => {
    const market = await findMarket({ ctx: txCtx, input: { marketId: body.marketId } });
    const holding = (await listWatchlists({ ctx: txCtx, input: {} })).find((w) => market.eventId in w.events);
    const watchlist =
      holding ??
      (await putWatchlistEvent({
        ctx: txCtx,
        input: { watchlistId: (await findOrCreateDefaultWatchlist({ ctx: txCtx })).id, eventId: market.eventId, body: undefined },
      }));
    return createChatSubscription({
      ctx: txCtx,
      input: {
        watchlistId: watchlist.id,
        subscriptionScope: 'Market',
        eventId: market.eventId,
        marketId: market.id,
        subscriptionTypeConfig:
          'subscriptionTypeConfig' in body ? body.subscriptionTypeConfig : { type: body.type, config: { params: { threshold_percent: body.thresholdPercent } } },
        triggerType: body.triggerType,
        ...(body.triggerInterval ? { triggerInterval: body.triggerInterval } : {}),
        channels: [body.channel],
      },
    });
  });
}

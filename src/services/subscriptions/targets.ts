import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { catalogMarkets, watchlistEvents } from '../../db/schema/index.js';
import type { SubscriptionScope } from '../../domain/enums.js';
import { validationError } from '../errors.js';

/** Checks that the scope names what it must: the event in the watchlist, the market in that event. */
export async function resolveTarget(
  tx: Tx,
  watchlistId: string,
  scope: SubscriptionScope,
  eventId: string | undefined,
  marketId: string | undefined,
): Promise<{ eventId: string | null; marketId: string | null }> {
  if (scope === 'Watchlist') {
    if (eventId !== undefined || marketId !== undefined) {
      throw validationError('A Watchlist-scoped subscription takes no eventId or marketId');
    }
    return { eventId: null, marketId: null };
  }
  if (eventId === undefined) throw validationError(`eventId is required for the ${scope} scope`);
  if (scope === 'Event' && marketId !== undefined) {
    throw validationError('An Event-scoped subscription takes no marketId; use the Market scope');
  }
  if (scope === 'Market' && marketId === undefined) throw validationError('marketId is required for the Market scope');

  // The event's place in the watchlist and the market's in the event, in one round trip.
  const [found] = await tx
    .select({ eventId: watchlistEvents.eventId, marketId: catalogMarkets.id })
    .from(watchlistEvents)
    .leftJoin(catalogMarkets, and(eq(catalogMarkets.id, marketId ?? ''), eq(catalogMarkets.eventId, watchlistEvents.eventId)))
    .where(and(eq(watchlistEvents.watchlistId, watchlistId), eq(watchlistEvents.eventId, eventId)));
  if (!found) throw validationError(`eventId: event ${eventId} is not in this watchlist`);
  if (marketId === undefined) return { eventId, marketId: null };
  if (found.marketId === null) throw validationError(`marketId: market ${marketId} is not a market of event ${eventId}`);
  return { eventId, marketId };
}

import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { catalogMarkets, watchlistEvents } from '../../db/schema/index.js';
import type { SubscriptionScope } from '../../domain/enums.js';
import { validationError } from '../errors.js';

/** What a scope asks the database to confirm: the event in the watchlist, the market in that event. */
type Wanted = { eventId: string; marketId: string | undefined } | null;

/** Checks that the scope names what it must (no database): null for the Watchlist scope. */
export function targetWanted(scope: SubscriptionScope, eventId: string | undefined, marketId: string | undefined): Wanted {
  if (scope === 'Watchlist') {
    if (eventId !== undefined || marketId !== undefined) {
      throw validationError('A Watchlist-scoped subscription takes no eventId or marketId');
    }
    return null;
  }
  if (eventId === undefined) throw validationError(`eventId is required for the ${scope} scope`);
  if (scope === 'Event' && marketId !== undefined) {
    throw validationError('An Event-scoped subscription takes no marketId; use the Market scope');
  }
  if (scope === 'Market' && marketId === undefined) throw validationError('marketId is required for the Market scope');
  return { eventId, marketId };
}

/**
 * The target from what the database found: `eventInWatchlist` whether the event is in the
 * watchlist, `marketInEvent` whether the market (if one is wanted) is a market of that event.
 */
export function targetFound(
  wanted: Wanted,
  found: { eventInWatchlist: boolean; marketInEvent: boolean },
): { eventId: string | null; marketId: string | null } {
  if (wanted === null) return { eventId: null, marketId: null };
  const { eventId, marketId } = wanted;
  if (!found.eventInWatchlist) throw validationError(`eventId: event ${eventId} is not in this watchlist`);
  if (marketId === undefined) return { eventId, marketId: null };
  if (!found.marketInEvent) throw validationError(`marketId: market ${marketId} is not a market of event ${eventId}`);
  return { eventId, marketId };
}

/** Checks that the scope names what it must: the event in the watchlist, the market in that event. */
export async function resolveTarget(
  tx: Tx,
  watchlistId: string,
  scope: SubscriptionScope,
  eventId: string | undefined,
  marketId: string | undefined,
): Promise<{ eventId: string | null; marketId: string | null }> {
  const wanted = targetWanted(scope, eventId, marketId);
  if (wanted === null) return targetFound(wanted, { eventInWatchlist: true, marketInEvent: true });
  // The event's place in the watchlist and the market's in the event, in one round trip.
  const [found] = await tx
    .select({ eventId: watchlistEvents.eventId, marketId: catalogMarkets.id })
    .from(watchlistEvents)
    .leftJoin(catalogMarkets, and(eq(catalogMarkets.id, wanted.marketId ?? ''), eq(catalogMarkets.eventId, watchlistEvents.eventId)))
    .where(and(eq(watchlistEvents.watchlistId, watchlistId), eq(watchlistEvents.eventId, wanted.eventId)));
  return targetFound(wanted, { eventInWatchlist: found !== undefined, marketInEvent: (found?.marketId ?? null) !== null });
}

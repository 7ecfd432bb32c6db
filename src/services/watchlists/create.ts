import { count, eq } from 'drizzle-orm';
import { watchlists } from '../../db/schema/index.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { limitExceeded } from '../errors.js';
import { newId } from '../ids.js';
import { parseInput } from '../validate.js';
import { announceWatchlistChange } from './changes.js';
import { putEventSelection } from './event-selection.js';
import { takeInMatchingEvents } from './take-in.js';
import { buildQuery } from './query-terms.js';
import { CreateWatchlistInput } from './schemas.js';
import { loadWatchlistView, type WatchlistView } from './view.js';

export async function createWatchlist({ ctx, input }: { ctx: ServiceContext; input: CreateWatchlistInput }): Promise<WatchlistView> {
  const body = parseInput(CreateWatchlistInput, input);
  const { config } = ctx;
  const query = buildQuery(
    { tags: body.query.tags, keyphrases: body.query.keyphrases, operator: body.query.searchMatchOperator },
    config.MAX_QUERY_TERMS,
  );
  const events = Object.entries(body.events ?? {});
  if (events.length > config.MAX_EVENTS_PER_WATCHLIST) {
    throw limitExceeded(`Event limit exceeded: a watchlist holds at most ${config.MAX_EVENTS_PER_WATCHLIST} events (MAX_EVENTS_PER_WATCHLIST)`, 'watchlist event', config.MAX_EVENTS_PER_WATCHLIST);
  }

  return withTransaction(ctx, async (tx) => {
    const [owned] = await tx.select({ n: count() }).from(watchlists).where(eq(watchlists.accountId, ctx.account.id));
    if ((owned?.n ?? 0) >= config.MAX_WATCHLISTS) {
      throw limitExceeded(`Watchlist limit reached: an account may hold ${config.MAX_WATCHLISTS} watchlists (MAX_WATCHLISTS)`, 'watchlist', config.MAX_WATCHLISTS);
    }
    const id = newId();
    const now = new Date();
    await tx.insert(watchlists).values({
      id,
      accountId: ctx.account.id,
      name: body.name,
      query,
      automaticallyAddMatchingEvents: body.automaticallyAddMatchingEvents,
      createdAt: now,
      updatedAt: now,
    });
    for (const [eventId, selection] of events) {
      await putEventSelection(tx, id, eventId, selection, config.MAX_EVENTS_PER_WATCHLIST);
    }
    if (body.automaticallyAddMatchingEvents) {
      await takeInMatchingEvents(ctx.database, tx, { id, query }, config.MAX_EVENTS_PER_WATCHLIST);
    }
    await announceWatchlistChange(tx, id);
    return (await loadWatchlistView(tx, ctx.account.id, id))!;
  });
}

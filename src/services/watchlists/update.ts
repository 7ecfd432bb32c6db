import { eq } from 'drizzle-orm';
import { watchlists } from '../../db/schema/index.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { conflict, validationError } from '../errors.js';
import { parseInput } from '../validate.js';
import { announceWatchlistChange } from './changes.js';
import { requireOwnedWatchlist } from './owned.js';
import { buildQuery, usesKeyphrases, usesTags } from './query-terms.js';
import { UpdateKeyphrasesInput, UpdateTagsInput, UpdateWatchlistInput, WatchlistIdInput } from './schemas.js';
import { takeInMatchingEvents } from './take-in.js';
import { loadWatchlistView, type WatchlistView } from './view.js';

type Args<B> = { ctx: ServiceContext; input: WatchlistIdInput & { body: B } };

export async function updateWatchlist({ ctx, input }: Args<UpdateWatchlistInput>): Promise<WatchlistView> {
  const { watchlistId } = parseInput(WatchlistIdInput, input);
  const body = parseInput(UpdateWatchlistInput, input.body);
  return withTransaction(ctx, async (tx) => {
    const row = await requireOwnedWatchlist(tx, ctx.account.id, watchlistId);
    await tx
      .update(watchlists)
      .set({ name: body.name, automaticallyAddMatchingEvents: body.automaticallyAddMatchingEvents, updatedAt: new Date() })
      .where(eq(watchlists.id, watchlistId));
    if (body.automaticallyAddMatchingEvents) await takeInMatchingEvents(ctx.database, tx, row, ctx.config.MAX_EVENTS_PER_WATCHLIST);
    await announceWatchlistChange(tx, watchlistId);
    return (await loadWatchlistView(tx, ctx.account.id, watchlistId))!;
  });
}

/** `PATCH …/query/tags`: only for a watchlist that does not use keyphrases; needs an included tag. */
export async function updateWatchlistTags({ ctx, input }: Args<UpdateTagsInput>): Promise<void> {
  const { watchlistId } = parseInput(WatchlistIdInput, input);
  const { tags, operator } = parseInput(UpdateTagsInput, input.body);
  if (!tags.some((t) => t.include)) {
    throw validationError('Give at least one valid tag to include (includeTags, or tags with include: true)');
  }
  await withTransaction(ctx, async (tx) => {
    const row = await requireOwnedWatchlist(tx, ctx.account.id, watchlistId);
    if (usesKeyphrases(row.query)) {
      throw conflict('This watchlist uses keyphrases; update it with PATCH /watchlists/{watchlistId}/query/keyphrases');
    }
    const query = buildQuery({ tags, operator }, ctx.config.MAX_QUERY_TERMS);
    await tx.update(watchlists).set({ query, updatedAt: new Date() }).where(eq(watchlists.id, watchlistId));
    if (row.automaticallyAddMatchingEvents) {
      await takeInMatchingEvents(ctx.database, tx, { id: watchlistId, query }, ctx.config.MAX_EVENTS_PER_WATCHLIST);
    }
    await announceWatchlistChange(tx, watchlistId);
  });
}

/** `PATCH …/query/keyphrases`: only for a watchlist that does not use tags. */
export async function updateWatchlistKeyphrases({ ctx, input }: Args<UpdateKeyphrasesInput>): Promise<void> {
  const { watchlistId } = parseInput(WatchlistIdInput, input);
  const { keyphrases, matchOperator } = parseInput(UpdateKeyphrasesInput, input.body);
  if (!keyphrases.some((k) => k.include)) {
    throw validationError('Give at least one keyphrase with include: true');
  }
  await withTransaction(ctx, async (tx) => {
    const row = await requireOwnedWatchlist(tx, ctx.account.id, watchlistId);
    if (usesTags(row.query)) {
      throw conflict('This watchlist uses tags; update it with PATCH /watchlists/{watchlistId}/query/tags');
    }
    const query = buildQuery({ keyphrases, operator: matchOperator }, ctx.config.MAX_QUERY_TERMS);
    await tx.update(watchlists).set({ query, updatedAt: new Date() }).where(eq(watchlists.id, watchlistId));
    if (row.automaticallyAddMatchingEvents) {
      await takeInMatchingEvents(ctx.database, tx, { id: watchlistId, query }, ctx.config.MAX_EVENTS_PER_WATCHLIST);
    }
    await announceWatchlistChange(tx, watchlistId);
  });
}

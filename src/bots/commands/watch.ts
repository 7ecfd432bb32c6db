import { findEvent } from '../../services/search/index.js';
import { listWatchlists, putWatchlistEvent, removeWatchlistEvent } from '../../services/watchlists/index.js';
import { targetWatchlist } from './shared.js';
import { UsageError, type Command } from './types.js';

export const watchCommand: Command = {
  name: 'watch',
  usage: 'watch <event link|slug|id> [watchlist]',
  summary: 'Add an event to a watchlist ("My watchlist" by default)',
  async run({ ctx, args }) {
    if (args.length === 0) throw new UsageError();
    const event = await findEvent({ ctx, input: { ref: args[0]! } });
    const watchlist = await targetWatchlist(ctx, args.slice(1).join(' ') || undefined);
    await putWatchlistEvent({ ctx, input: { watchlistId: watchlist.id, eventId: event.id, body: undefined } });
    return { text: `Watching "${event.title}" (event ${event.id}) in "${watchlist.name}".` };
  },
};

export const unwatchCommand: Command = {
  name: 'unwatch',
  usage: 'unwatch <event link|slug|id>',
  summary: 'Remove an event from your watchlists',
  async run({ ctx, args }) {
    if (args.length !== 1) throw new UsageError();
    const event = await findEvent({ ctx, input: { ref: args[0]! } });
    const holding = (await listWatchlists({ ctx, input: {} })).filter((w) => event.id in w.events);
    if (holding.length === 0) return { text: `"${event.title}" is not in any of your watchlists.` };
    for (const w of holding) await removeWatchlistEvent({ ctx, input: { watchlistId: w.id, eventId: event.id } });
    return { text: `Stopped watching "${event.title}" (${holding.map((w) => w.name).join(', ')}).` };
  },
};

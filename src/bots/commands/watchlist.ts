import { createWatchlist, deleteWatchlistByRef, findWatchlistByRef, renameWatchlistByRef } from '../../services/watchlists/index.js';
import { describeWatchlist } from './shared.js';
import { UsageError, type Command, type CommandInput } from './types.js';

const USAGE = 'watchlist new <name> | show <id|name> | rename <id> <name> | delete <id>';

async function show({ ctx, args }: CommandInput) {
  if (args.length < 2) throw new UsageError();
  const w = await findWatchlistByRef({ ctx, input: { watchlist: args.slice(1).join(' ') } });
  const events = Object.keys(w.events);
  const lines = events.length > 0 ? events.map((id) => `   · event ${id}`) : ['   (no events yet; add one with /watch <event>)'];
  return { text: [describeWatchlist(w), ...lines].join('\n') };
}

export const watchlistCommand: Command = {
  name: 'watchlist',
  usage: USAGE,
  summary: 'Create, show, rename or delete a watchlist',
  async run(input) {
    const { ctx, args } = input;
    const [sub, id] = args;
    switch (sub) {
      case 'new': {
        if (args.length < 2) throw new UsageError();
        const w = await createWatchlist({ ctx, input: { name: args.slice(1).join(' ') } });
        return { text: `Created watchlist "${w.name}" (id ${w.id}).` };
      }
      case 'show':
        return show(input);
      case 'rename': {
        if (args.length < 3) throw new UsageError();
        const renamed = await renameWatchlistByRef({ ctx, input: { watchlist: id!, name: args.slice(2).join(' ') } });
        return { text: `Renamed to "${renamed.name}".` };
      }
      case 'delete': {
        if (args.length < 2) throw new UsageError();
        const w = await deleteWatchlistByRef({ ctx, input: { watchlist: args.slice(1).join(' ') } });
        return { text: `Deleted watchlist "${w.name}" and its alerts.` };
      }
      default:
        throw new UsageError();
    }
  },
};

import { unwatchEvent, watchEvent } from '../../services/watchlists/index.js';
import { UsageError, type Command } from './types.js';

export const watchCommand: Command = {
  name: 'watch',
  usage: 'watch <event link|slug|id> [watchlist]',
  summary: 'Add an event to a watchlist ("My watchlist" by default)',
  async run({ ctx, args }) {
    if (args.length === 0) throw new UsageError();
    const named = args.slice(1).join(' ');
    const { event, watchlist } = await watchEvent({ ctx, input: { event: args[0]!, ...(named ? { watchlist: named } : {}) } });
    return { text: `Watching "${event.title}" (event ${event.id}) in "${watchlist.name}".` };
  },
};

export const unwatchCommand: Command = {
  name: 'unwatch',
  usage: 'unwatch <event link|slug|id>',
  summary: 'Remove an event from your watchlists',
  async run({ ctx, args }) {
    if (args.length !== 1) throw new UsageError();
    const { event, watchlists } = await unwatchEvent({ ctx, input: { event: args[0]! } });
    if (watchlists.length === 0) return { text: `"${event.title}" is not in any of your watchlists.` };
    return { text: `Stopped watching "${event.title}" (${watchlists.map((w) => w.name).join(', ')}).` };
  },
};

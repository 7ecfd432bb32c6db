import { unwatchEvent, watchEvent } from '../../services/watchlists/index.js';
import { textOf, type TextParam } from './params.js';
import type { Command } from './types.js';

const EVENT: TextParam = { kind: 'text', name: 'event', word: 'event link|slug|id', help: 'Event link, slug or id' };

export const watchCommand: Command = {
  name: 'watch',
  params: [EVENT, { kind: 'text', name: 'watchlist', help: 'Watchlist id or name ("My watchlist" by default)', optional: true, rest: true }],
  summary: 'Add an event to a watchlist ("My watchlist" by default)',
  async run({ ctx, values }) {
    const named = textOf(values, 'watchlist');
    const { event, watchlist } = await watchEvent({ ctx, input: { event: textOf(values, 'event')!, ...(named ? { watchlist: named } : {}) } });
    return { text: `Watching "${event.title}" (event ${event.id}) in "${watchlist.name}".` };
  },
};

export const unwatchCommand: Command = {
  name: 'unwatch',
  params: [EVENT],
  summary: 'Remove an event from your watchlists',
  async run({ ctx, values }) {
    const { event, watchlists } = await unwatchEvent({ ctx, input: { event: textOf(values, 'event')! } });
    if (watchlists.length === 0) return { text: `"${event.title}" is not in any of your watchlists.` };
    return { text: `Stopped watching "${event.title}" (${watchlists.map((w) => w.name).join(', ')}).` };
  },
};

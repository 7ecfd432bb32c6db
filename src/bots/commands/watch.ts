import { encodeButton } from '../../domain/button-actions.js';
import { countUnwatch, unwatchEvent, watchEvent } from '../../services/watchlists/index.js';
import { askFirst } from './ask-first.js';
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

const names = (watchlists: readonly { name: string }[]) => watchlists.map((w) => `"${w.name}"`).join(', ');

export const unwatchCommand: Command = {
  name: 'unwatch',
  params: [EVENT],
  summary: 'Remove an event from your watchlists (asks first)',
  async run({ ctx, values, confirmed }) {
    const ref = textOf(values, 'event')!;
    if (!confirmed) {
      const { event, watchlists, alertsPaused } = await countUnwatch({ ctx, input: { event: ref } });
      if (watchlists.length === 0) return { text: `"${event.title}" is not in any of your watchlists.` };
      const alerts = alertsPaused === 1 ? '1 active alert on it is paused' : `${alertsPaused} active alerts on it are paused`;
      return askFirst(`Stop watching "${event.title}"? It leaves ${names(watchlists)} and ${alerts}.`, encodeButton('confirm', 'unwatch', event.id));
    }
    const { event, watchlists } = await unwatchEvent({ ctx, input: { event: ref } });
    if (watchlists.length === 0) return { text: `"${event.title}" is not in any of your watchlists.` };
    return { text: `Stopped watching "${event.title}" ✓ (${names(watchlists)}).` };
  },
};

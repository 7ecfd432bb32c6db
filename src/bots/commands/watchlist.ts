import { createWatchlist, deleteWatchlistByRef, findWatchlistByRef, renameWatchlistByRef } from '../../services/watchlists/index.js';
import { textOf, type TextParam } from './params.js';
import { describeWatchlist } from './shared.js';
import type { Command } from './types.js';

const WATCHLIST: TextParam = { kind: 'text', name: 'watchlist', help: 'Its id or name', rest: true };
const NAME: TextParam = { kind: 'text', name: 'name', help: 'Its name', rest: true };

export const watchlistCommand: Command = {
  name: 'watchlist',
  subcommands: [
    { name: 'new', summary: 'Create a watchlist', params: [NAME] },
    { name: 'show', summary: 'One watchlist and its events', params: [WATCHLIST] },
    { name: 'rename', summary: 'Rename a watchlist', params: [{ kind: 'text', name: 'id', help: 'Its id' }, { ...NAME, help: 'The new name' }] },
    { name: 'delete', summary: 'Delete a watchlist and its alerts', params: [WATCHLIST] },
  ],
  summary: 'Create, show, rename or delete a watchlist',
  async run({ ctx, values, subcommand }) {
    switch (subcommand) {
      case 'new': {
        const w = await createWatchlist({ ctx, input: { name: textOf(values, 'name')! } });
        return { text: `Created watchlist "${w.name}" (id ${w.id}).` };
      }
      case 'show': {
        const w = await findWatchlistByRef({ ctx, input: { watchlist: textOf(values, 'watchlist')! } });
        const events = Object.keys(w.events);
        const lines = events.length > 0 ? events.map((id) => `   · event ${id}`) : ['   (no events yet; add one with /watch <event>)'];
        return { text: [describeWatchlist(w), ...lines].join('\n') };
      }
      case 'rename': {
        const renamed = await renameWatchlistByRef({ ctx, input: { watchlist: textOf(values, 'id')!, name: textOf(values, 'name')! } });
        return { text: `Renamed to "${renamed.name}".` };
      }
      default: {
        const w = await deleteWatchlistByRef({ ctx, input: { watchlist: textOf(values, 'watchlist')! } });
        return { text: `Deleted watchlist "${w.name}" and its alerts.` };
      }
    }
  },
};

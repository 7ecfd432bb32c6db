import { listWatchlists } from '../../services/watchlists/index.js';
import { describeWatchlist } from './shared.js';
import type { Command } from './types.js';

export const watchlistsCommand: Command = {
  name: 'watchlists',
  personal: true,
  summary: 'Your watchlists',
  async run({ ctx }) {
    const all = await listWatchlists({ ctx, input: {} });
    if (all.length === 0) return { text: 'You have no watchlists yet. Try /watchlist new <name> or /watch <event>.' };
    return { text: `Your watchlists:\n${all.map(describeWatchlist).join('\n')}` };
  },
};

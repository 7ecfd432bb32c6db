import { encodeButton } from '../../domain/button-actions.js';
import { listWatchlists, type WatchlistView } from '../../services/watchlists/index.js';
import { listReply } from './list-reply.js';
import type { BotButton, Command } from './types.js';

const WATCHLISTS_PER_PAGE = 8;

const eventCount = (w: WatchlistView) => {
  const n = Object.keys(w.events).length;
  return `${n} event${n === 1 ? '' : 's'}`;
};

export const watchlistsCommand: Command = {
  name: 'watchlists',
  personal: true,
  summary: 'Your watchlists, a page at a time',
  async run({ ctx, chat, page }) {
    const all = await listWatchlists({ ctx, input: {} });
    if (all.length === 0) return { text: 'You have no watchlists yet. Try /watchlist new <name> or /watch <event>.' };
    return listReply({
      chat,
      header: `Your watchlists (${all.length}):`,
      entries: all,
      line: (w) => `${w.name} — ${eventCount(w)}`,
      buttons: (w, n): BotButton[] => {
        const action = encodeButton('page', 'watchlist', 1, 'show', w.id);
        return action ? [{ label: `${n} Show`, action }] : [];
      },
      perPage: WATCHLISTS_PER_PAGE,
      page,
      command: 'watchlists',
    });
  },
};

import { encodeButton } from '../../domain/button-actions.js';
import {
  countWatchlistDelete,
  createWatchlist,
  deleteWatchlistByRef,
  findWatchlistContents,
  renameWatchlistByRef,
  type WatchedEvent,
} from '../../services/watchlists/index.js';
import { askFirst } from './ask-first.js';
import { listReply } from './list-reply.js';
import { textOf, type TextParam } from './params.js';
import type { Command } from './types.js';

const WATCHLIST: TextParam = { kind: 'text', name: 'watchlist', help: 'Its id or name', rest: true };
const NAME: TextParam = { kind: 'text', name: 'name', help: 'Its name', rest: true };
const EVENTS_PER_PAGE = 10;
/** A market's question is listed under its event when it is this short; longer ones would drown the titles. */
const SHORT_QUESTION = 60;
const MAX_QUESTIONS = 3;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `• Event title` and, when short and few, its markets' questions after it. */
function eventLine(e: WatchedEvent): string {
  const title = e.title ?? `an event no longer listed (${e.id})`;
  const short = e.markets.filter((m) => m.question.length <= SHORT_QUESTION && m.question !== e.title);
  const questions = short.length > 0 && short.length <= MAX_QUESTIONS ? `: ${short.map((m) => m.question).join(' / ')}` : '';
  const more = e.markets.length > 1 ? ` (${plural(e.markets.length, 'market')})` : '';
  return `• ${title}${more}${questions}`;
}

export const watchlistCommand: Command = {
  name: 'watchlist',
  subcommands: [
    { name: 'new', summary: 'Create a watchlist', params: [NAME] },
    { name: 'show', summary: 'One watchlist and its events', params: [WATCHLIST] },
    { name: 'rename', summary: 'Rename a watchlist', params: [{ kind: 'text', name: 'id', help: 'Its id' }, { ...NAME, help: 'The new name' }] },
    { name: 'delete', summary: 'Delete a watchlist and its alerts (asks first)', params: [WATCHLIST] },
  ],
  summary: 'Create, show, rename or delete a watchlist',
  async run({ ctx, chat, values, subcommand, page, confirmed }) {
    switch (subcommand) {
      case 'new': {
        const w = await createWatchlist({ ctx, input: { name: textOf(values, 'name')! } });
        return { text: `Created watchlist "${w.name}" (id ${w.id}).` };
      }
      case 'show': {
        const { watchlist, events } = await findWatchlistContents({ ctx, input: { watchlist: textOf(values, 'watchlist')! } });
        const header = `"${watchlist.name}" — ${plural(events.length, 'event')}:`;
        if (events.length === 0) return { text: `${header}\n(no events yet; add one with /watch <event>)` };
        return listReply({ chat, header, entries: events, line: eventLine, perPage: EVENTS_PER_PAGE, page, command: 'watchlist', words: ['show', watchlist.id] });
      }
      case 'rename': {
        const renamed = await renameWatchlistByRef({ ctx, input: { watchlist: textOf(values, 'id')!, name: textOf(values, 'name')! } });
        return { text: `Renamed to "${renamed.name}".` };
      }
      default: {
        const ref = textOf(values, 'watchlist')!;
        if (!confirmed) {
          const { watchlist, events, alerts } = await countWatchlistDelete({ ctx, input: { watchlist: ref } });
          return askFirst(
            `Delete watchlist "${watchlist.name}"? ${plural(events, 'event')} and ${plural(alerts, 'alert')} go with it.`,
            encodeButton('confirm', 'watchlist', 'delete', watchlist.id),
          );
        }
        const w = await deleteWatchlistByRef({ ctx, input: { watchlist: ref } });
        return { text: `Deleted watchlist "${w.name}" ✓` };
      }
    }
  },
};

import { findEvents, searchByTags } from '../../services/search/index.js';
import { encodeButton } from '../../domain/button-actions.js';
import { startAlertButton } from './alert-flow.js';
import { cutText } from '../../text/cut.js';
import { textOf } from './params.js';
import type { ServiceContext } from '../../services/context.js';
import type { BotButton, BotReply, Command } from './types.js';

const PAGE = 4;
/** findEvents' largest limit: pages beyond it are not offered. */
const MAX_FETCH = 50;
/** Within both platforms' limits: Discord's 2,000 characters per message, 5 buttons per row. */
const MAX_TEXT = 1900;
const ALERTS_PER_EVENT = 4;
const MAX_TITLE = 100;
const LETTERS = 'ABCD';

const yesPrice = (m: { outcomePrices: string }) => {
  const price = (JSON.parse(m.outcomePrices) as string[])[0];
  return price !== undefined ? ` — Yes ${Math.round(Number(price) * 100)}%` : '';
};

export const searchCommand: Command = {
  name: 'search',
  params: [{ kind: 'text', name: 'query', help: 'Words, or tag:<slug> [tag:<slug> ...]', rest: true }],
  summary: 'Find open events',
  publicAnswer: true,
  // Previous/Next are the lists' `page` buttons: the page (1-based) comes back through the input.
  run: ({ ctx, values, page }) => searchPage(ctx, textOf(values, 'query')!, page - 1),
};

/**
 * One page of results: up to PAGE events, each a letter (its Watch button) with its markets
 * numbered (their Alert buttons), so one row per event plus Previous/Next fit Discord's five rows.
 * Previous/Next are `page:search:<page>:<query words>` buttons, run like any list's page.
 */
async function searchPage(ctx: ServiceContext, rest: string, page: number): Promise<BotReply> {
  const args = rest.split(/\s+/);
  const queryWords = args.filter((a) => a !== '');
  const tags = args.filter((a) => a.startsWith('tag:')).map((a) => a.slice(4));
  const words = args.filter((a) => !a.startsWith('tag:')).join(' ');
  // One more than this page needs: whether there is a next page.
  const limit = Math.min((page + 1) * PAGE + 1, MAX_FETCH);
  const found =
    tags.length > 0
      ? await searchByTags({ ctx, input: { tags: tags.map((text) => ({ text })) }, query: { limit } })
      : await findEvents({ ctx, input: { q: words || rest, limit } });
  const results = found.slice(page * PAGE, (page + 1) * PAGE);
  if (results.length === 0) return { text: page === 0 ? `No open events match "${rest}".` : `No more open events match "${rest}".` };
  const blocks: string[] = [];
  const buttons: BotButton[][] = [];
  let n = 0;
  for (const [i, e] of results.entries()) {
    const letter = LETTERS[i]!;
    const row: BotButton[] = [];
    const watch = encodeButton('watch', e.id);
    if (watch) row.push({ label: `Watch ${letter}`, action: watch });
    // Ids stay in the text for the typed shortcuts (`/alert <market id> up 60`, `/watch <event id>`).
    const lines = [`${letter}. ${cutText(e.title, MAX_TITLE)} (event ${e.id})`];
    for (const [j, m] of e.markets.entries()) {
      const alert = j < ALERTS_PER_EVENT ? startAlertButton(`Alert ${n + 1}`, m.id) : undefined;
      if (alert) {
        row.push(alert);
        lines.push(`   ${++n}. ${cutText(m.question, MAX_TITLE)}${yesPrice(m)} (market ${m.id})`);
      } else {
        lines.push(`   · ${cutText(m.question, MAX_TITLE)}${yesPrice(m)} (market ${m.id})`);
      }
    }
    const block = lines.join('\n');
    if ([...blocks, block].join('\n\n').length > MAX_TEXT) break;
    blocks.push(block);
    if (row.length > 0) buttons.push(row);
  }
  const hasNext = found.length > (page + 1) * PAGE && limit < MAX_FETCH;
  // A query the button cannot carry (over 64 bytes, or with a colon) gets no Previous/Next.
  const nav = [
    page > 0 ? { label: 'Previous', action: encodeButton('page', 'search', page, ...queryWords) } : undefined,
    hasNext ? { label: 'Next', action: encodeButton('page', 'search', page + 2, ...queryWords) } : undefined,
  ].filter((b): b is BotButton => b?.action !== undefined);
  if (nav.length > 0) buttons.push(nav);
  const footer = page > 0 || hasNext ? `\n\nPage ${page + 1}` : '';
  return { text: blocks.join('\n\n') + footer, buttons };
}

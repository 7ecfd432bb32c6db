import { findEvents, searchByTags } from '../../services/search/index.js';
import { encodeButton } from '../../domain/button-actions.js';
import { startAlertButton } from './alert-flow.js';
import { cutText } from '../../text/cut.js';
import { textOf } from './params.js';
import type { BotButton, Command } from './types.js';

const TOP = 5;
/** Within both platforms' limits: Discord's 2,000 characters per message, 5 buttons per row. */
const MAX_TEXT = 1900;
const ALERTS_PER_EVENT = 4;
const MAX_TITLE = 100;
const LETTERS = 'ABCDE';

const yesPrice = (m: { outcomePrices: string }) => {
  const price = (JSON.parse(m.outcomePrices) as string[])[0];
  return price !== undefined ? ` — Yes ${Math.round(Number(price) * 100)}%` : '';
};

export const searchCommand: Command = {
  name: 'search',
  params: [{ kind: 'text', name: 'query', help: 'Words, or tag:<slug> [tag:<slug> ...]', rest: true }],
  summary: 'Find open events',
  publicAnswer: true,
  async run({ ctx, values }) {
    const rest = textOf(values, 'query')!;
    const args = rest.split(/\s+/);
    const tags = args.filter((a) => a.startsWith('tag:')).map((a) => a.slice(4));
    const words = args.filter((a) => !a.startsWith('tag:')).join(' ');
    const results =
      tags.length > 0
        ? await searchByTags({ ctx, input: { tags: tags.map((text) => ({ text })) }, query: { limit: TOP } })
        : await findEvents({ ctx, input: { q: words || rest, limit: TOP } });
    if (results.length === 0) return { text: `No open events match "${rest}".` };
    // Each event is a letter (its Watch button), each market a number (its Alert button): the
    // buttons stay short and one row per event fits Discord's five rows.
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
    return { text: blocks.join('\n\n'), buttons };
  },
};

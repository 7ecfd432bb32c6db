import { findEvents, searchByTags } from '../../services/search/index.js';
import { encodeButton } from '../../domain/button-actions.js';
import { cutText } from '../../text/cut.js';
import { textOf } from './params.js';
import type { BotButton, Command } from './types.js';

const TOP = 5;

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
    const blocks = results.map((e) => {
      const markets = e.markets.map((m) => {
        const prices = JSON.parse(m.outcomePrices) as string[];
        const yes = prices[0] !== undefined ? ` — Yes ${Math.round(Number(prices[0]) * 100)}%` : '';
        return `   · ${m.question}${yes} (market ${m.id})`;
      });
      return [`${e.title} (event ${e.id})`, ...markets].join('\n');
    });
    return {
      text: blocks.join('\n\n'),
      buttons: results.flatMap((e): BotButton[][] => {
        const action = encodeButton('watch', e.id);
        return action ? [[{ label: `Watch: ${cutText(e.title, 40)}`, action }]] : [];
      }),
    };
  },
};

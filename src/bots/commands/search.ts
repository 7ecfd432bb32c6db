import { searchByKeyphrases, searchByTags } from '../../services/search/index.js';
import { cutText } from '../../text/cut.js';
import { UsageError, type Command } from './types.js';

const TOP = 5;

export const searchCommand: Command = {
  name: 'search',
  usage: 'search <words> | search tag:<slug> [tag:<slug> ...]',
  summary: 'Find open events',
  async run({ ctx, args, rest }) {
    if (args.length === 0) throw new UsageError();
    const tags = args.filter((a) => a.startsWith('tag:')).map((a) => a.slice(4));
    const words = args.filter((a) => !a.startsWith('tag:')).join(' ');
    const results =
      tags.length > 0
        ? await searchByTags({ ctx, input: { tags: tags.map((text) => ({ text })) }, query: { limit: TOP } })
        : await searchByKeyphrases({ ctx, input: { keyphrases: [{ text: words || rest }] }, query: { limit: TOP } });
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
      buttons: results.map((e) => [{ label: `Watch: ${cutText(e.title, 40)}`, action: `watch:${e.id}` }]),
    };
  },
};

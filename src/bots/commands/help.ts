import { usage } from './params.js';
import type { Command } from './types.js';

/** `help` lists every command in the caller's platform syntax; built from the registry so it never drifts. */
export function helpCommand(name: 'help' | 'start', all: () => Command[]): Command {
  return {
    name,
    summary: name === 'start' ? 'Welcome and the list of commands' : 'The list of commands',
    publicAnswer: true,
    async run({ chat }) {
      const lines = all()
        .filter((c) => c.name !== 'start')
        .flatMap((c) => [`${usage(c, chat.kind)} — ${c.summary}`, ...(c.params ?? []).filter((p) => p.detail).map((p) => `   ${p.name}: ${p.detail}`)]);
      const intro = name === 'start' ? 'Welcome to Oddswatch: watch Polymarket events and get price alerts here.\n\n' : '';
      return { text: `${intro}Commands:\n${lines.join('\n')}` };
    },
  };
}

import type { Command } from './types.js';

/** `help` lists every command; built from the registry so it never drifts. */
export function helpCommand(name: 'help' | 'start', all: () => Command[]): Command {
  return {
    name,
    usage: name,
    summary: name === 'start' ? 'Welcome and the list of commands' : 'The list of commands',
    async run() {
      const lines = all()
        .filter((c) => c.name !== 'start')
        .map((c) => `/${c.usage} — ${c.summary}`);
      const intro = name === 'start' ? 'Welcome to Oddswatch: watch Polymarket events and get price alerts here.\n\n' : '';
      return { text: `${intro}Commands:\n${lines.join('\n')}` };
    },
  };
}

import type { ServiceContext } from '../../services/context.js';
import { alertCommand } from './alert.js';
import { alertsCommand, deleteCommand, pauseCommand, resumeCommand } from './alerts.js';
import { helpCommand } from './help.js';
import { inboxCommand } from './inbox.js';
import { enableCommand } from './enable.js';
import { errorReply } from './replies.js';
import { searchCommand } from './search.js';
import { testAlertCommand } from './test-alert.js';
import { tokenCommand } from './token.js';
import type { BotReply, ChatInfo, Command } from './types.js';
import { unwatchCommand, watchCommand } from './watch.js';
import { watchlistCommand } from './watchlist.js';
import { watchlistsCommand } from './watchlists.js';

export type { BotReply, ChatInfo, Command } from './types.js';
export { GENERIC_FAILURE } from './replies.js';

/** Every command of both bots, in menu order. An explicit list: nothing is loaded by file name. */
export const COMMANDS: readonly Command[] = [
  helpCommand('start', () => [...COMMANDS]),
  helpCommand('help', () => [...COMMANDS]),
  searchCommand,
  watchCommand,
  unwatchCommand,
  watchlistsCommand,
  watchlistCommand,
  alertCommand,
  alertsCommand,
  testAlertCommand,
  pauseCommand,
  resumeCommand,
  deleteCommand,
  enableCommand,
  inboxCommand,
  tokenCommand,
];

const byName = new Map(COMMANDS.map((c) => [c.name, c]));

/** `"/search@OddsBot foo"` or `"search foo"` → `["search", "foo"]`-ish parts. */
function parse(text: string): { name: string; rest: string } {
  const trimmed = text.trim();
  const space = trimmed.search(/\s/);
  const head = space === -1 ? trimmed : trimmed.slice(0, space);
  const rest = space === -1 ? '' : trimmed.slice(space).trim();
  return { name: head.replace(/^\//, '').replace(/@.*$/, '').toLowerCase(), rest };
}

/** The one entry of the command layer: a line of text in, a reply out. Never throws. */
export async function runCommand(ctx: ServiceContext, chat: ChatInfo, text: string): Promise<BotReply> {
  const { name, rest } = parse(text);
  const command = byName.get(name);
  if (!command) return { text: `Unknown command "${name}". Send /help for the list.` };
  let reply: BotReply;
  try {
    reply = await command.run({ ctx, chat, args: rest === '' ? [] : rest.split(/\s+/), rest });
  } catch (err) {
    reply = errorReply(err, command, ctx.logger);
  }
  return command.answersTapPrivately ? { ...reply, tapperOnly: true } : reply;
}

/** A button's action (`pause:<id>`, `enable:<id>:<position>`) as the command text it stands for (`pause <id>`). */
export const actionToText = (action: string): string => action.split(':').join(' ');

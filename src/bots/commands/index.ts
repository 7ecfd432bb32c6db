import type { ServiceContext } from '../../services/context.js';
import { alertCommand } from './alert.js';
import { runFlowButton, runTypedNumber } from './alert-flow.js';
import { alertsCommand, deleteCommand, pauseCommand, resumeCommand } from './alerts.js';
import { helpCommand } from './help.js';
import { inboxCommand } from './inbox.js';
import { linkCommand } from './link.js';
import { loginCommand } from './login.js';
import { enableCommand } from './enable.js';
import { errorReply } from './replies.js';
import { searchCommand } from './search.js';
import { digestCommand, rearmCommand, unsnoozeCommand } from './noise.js';
import { quietCommand, timezoneCommand } from './quiet.js';
import { snoozeCommand } from './snooze.js';
import { testAlertCommand } from './test-alert.js';
import { PRIVATE_ONLY, revokeCommand, tokenCommand, tokensCommand } from './token.js';
import { decodeButton } from '../../domain/button-actions.js';
import { checkValues, pickSubcommand, valuesFromWords, type ParamValue, type Values } from './params.js';
import type { BotReply, ChatInfo, Command } from './types.js';
import { unwatchCommand, watchCommand } from './watch.js';
import { watchlistCommand } from './watchlist.js';
import { watchlistsCommand } from './watchlists.js';

export type { BotReply, ChatInfo, Command } from './types.js';
export { GENERIC_FAILURE } from './replies.js';
export type { Param } from './params.js';
export { conditionChoices } from './alert-condition.js';

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
  snoozeCommand,
  unsnoozeCommand,
  digestCommand,
  rearmCommand,
  quietCommand,
  timezoneCommand,
  enableCommand,
  inboxCommand,
  tokenCommand,
  tokensCommand,
  revokeCommand,
  linkCommand,
  loginCommand,
];

const byName = new Map(COMMANDS.map((c) => [c.name, c]));

/** A free-text message in a private chat: what to send instead. */
export const FREE_TEXT_HINT = 'Send /search bitcoin to find a market, or /help for everything I can do.';
export const STALE_BUTTON = 'This button no longer works. Send /help for the commands.';

/** `"/search@OddsBot foo"` or `"search foo"` → the command name and its words. */
function parse(text: string): { name: string; words: string[] } {
  const [head = '', ...words] = text.trim().split(/\s+/);
  return { name: head.replace(/^\//, '').replace(/@.*$/, '').toLowerCase(), words };
}

/**
 * Runs one command on already-read parameters, with the one error boundary of the command layer.
 * `read` turns the platform's input into the declared values (it throws a UsageError naming a
 * wrong word). Never throws.
 */
async function runWith(
  ctx: ServiceContext,
  chat: ChatInfo,
  command: Command,
  read: () => { values: Values; subcommand?: string },
  tap: { page: number; confirmed: boolean } = { page: 1, confirmed: false },
): Promise<BotReply> {
  let reply: BotReply;
  try {
    const { values, subcommand } = read();
    reply = await command.run({ ctx, chat, values, ...tap, ...(subcommand ? { subcommand } : {}) });
  } catch (err) {
    reply = errorReply(err, command, chat.kind, ctx.logger);
  }
  if (command.personal && !chat.isPrivate && !reply.privateMessage) {
    reply = { ...reply, text: PRIVATE_ONLY, privateMessage: reply.text };
  }
  return command.answersTapPrivately ? { ...reply, tapperOnly: true } : reply;
}

function fromWords(command: Command, words: readonly string[]) {
  const picked = pickSubcommand(command, words);
  return { values: valuesFromWords(picked.params, picked.words), ...(picked.subcommand ? { subcommand: picked.subcommand } : {}) };
}

/** A line of text in (Telegram, or any typed command), a reply out. Never throws. */
export async function runCommand(ctx: ServiceContext, chat: ChatInfo, text: string): Promise<BotReply> {
  const { name, words } = parse(text);
  const command = byName.get(name);
  if (!command) return { text: `Unknown command "${name}". Send /help for the list.`, failed: true };
  return runWith(ctx, chat, command, () => fromWords(command, words));
}

export const CANCELLED = 'Cancelled: nothing was changed.';
/** Taps whose answer replaces the message they are on: a list's pages, an alert's toggles and settings, a question's answers. */
const EDITING_TAPS: ReadonlySet<string> = new Set(['pause', 'resume', 'delete', 'page', 'confirm', 'cancel', 'digest', 'rearm', 'unsnooze']);

/** What a tap runs: `page:` and `confirm:` wrap another command's words with the page or the go-ahead. */
function unwrap(decoded: { command: string; words: string[] }): { name: string; words: string[]; page: number; confirmed: boolean } {
  const [inner = '', ...rest] = decoded.words;
  if (decoded.command === 'page') return { name: inner, words: rest.slice(1), page: Number(rest[0]), confirmed: false };
  if (decoded.command === 'confirm') return { name: inner, words: rest, page: 1, confirmed: true };
  return { name: decoded.command, words: decoded.words, page: 1, confirmed: false };
}

/** A tapped button's data (`pause:<id>`, see domain/button-actions.ts) in, a reply out. Never throws. */
export async function runButton(ctx: ServiceContext, chat: ChatInfo, data: string): Promise<BotReply> {
  const decoded = decodeButton(data);
  if (decoded?.command === 'flow') return runFlowButton(ctx, chat, decoded.words);
  if (decoded?.command === 'cancel') return { text: CANCELLED, edit: true };
  const tap = decoded && unwrap(decoded);
  const command = tap && byName.get(tap.name);
  if (!decoded || !tap || !command || !Number.isInteger(tap.page)) return { text: STALE_BUTTON, failed: true, tapperOnly: true };
  const reply = await runWith(ctx, chat, command, () => fromWords(command, tap.words), { page: tap.page, confirmed: tap.confirmed });
  // A page of someone's own list is answered by whoever taps: in a group (where everyone sees the
  // buttons, Telegram) it must not replace the list another member asked for.
  const othersMessage = decoded.command === 'page' && !chat.isPrivate && !command.publicAnswer;
  // A tap that changed nothing (someone else's alert is "not found" to the tapper) is the tapper's
  // business alone: in a group it must not post in the chat.
  if (reply.failed) return { ...reply, tapperOnly: true };
  return EDITING_TAPS.has(decoded.command) && !othersMessage && !reply.failed && !reply.tapperOnly ? { ...reply, edit: true } : reply;
}

/**
 * Typed values in (Discord's options: the platform already typed them), each checked against its
 * declaration like a typed word. Never throws.
 */
export async function runWithValues(
  ctx: ServiceContext,
  chat: ChatInfo,
  name: string,
  given: { subcommand?: string; values: Readonly<Record<string, ParamValue>> },
): Promise<BotReply> {
  const command = byName.get(name);
  if (!command) return { text: `Unknown command "${name}". Send /help for the list.`, failed: true };
  return runWith(ctx, chat, command, () => ({ values: checkValues(command, given), ...(given.subcommand ? { subcommand: given.subcommand } : {}) }));
}

/** Commands whose answer the whole chat may see; the rest are about the caller's own data. */
export const isPublicCommand = (name: string): boolean => byName.get(name)?.publicAnswer === true;

/**
 * A number typed in answer to a reply's `askNumber` (a Telegram reply to that message, a Discord
 * modal): `actions` are the button data of the message answered. Undefined when none of them
 * asked for a number. Never throws.
 */
export async function runTypedAnswer(ctx: ServiceContext, chat: ChatInfo, actions: readonly string[], typed: string): Promise<BotReply | undefined> {
  for (const action of actions) {
    const decoded = decodeButton(action);
    const reply = decoded?.command === 'flow' ? await runTypedNumber(ctx, chat, decoded.words, typed) : undefined;
    if (reply) return reply;
  }
  return undefined;
}


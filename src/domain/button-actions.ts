// The button protocol shared by the bots and the alert senders: a tap carries `<command>:<arg>:…`,
// which the bot runs as the command with those words. Written and read only here.

/** Telegram's callback_data is at most 64 bytes; Discord's custom_id at most 100 characters. */
const MAX_TELEGRAM_BYTES = 64;
const MAX_DISCORD_CHARS = 100;
const SEPARATOR = ':';

/** The commands a button may stand for, with the arguments each takes. */
export interface ButtonActions {
  pause: [subscriptionId: string];
  resume: [subscriptionId: string];
  delete: [subscriptionId: string];
  enable: [subscriptionId: string, position: number];
  watch: [eventId: string];
  /** A step of the guided alert: the step's letter, then the draft so far (see bots/commands/alert-flow.ts). */
  flow: [step: string, ...draft: string[]];
  /** Another page of a list: the listing command, the page (1-based), and the command's own words. */
  page: [command: string, page: number, ...words: string[]];
  /** The Confirm under a "Delete …?" question: the command and its words, run for real this time. */
  confirm: [command: 'delete', subscriptionId: string] | [command: 'unwatch', eventId: string] | [command: 'watchlist', subcommand: 'delete', watchlistId: string];
  /** The Cancel under such a question. */
  cancel: [];
  /** The span is one of the snooze spans (`1h`, `8h`, `24h`), checked where the command reads it. */
  snooze: [subscriptionId: string, span: string];
  unsnooze: [subscriptionId: string];
  /** The mode is one of the delivery modes (`instant`, `hourly`, `daily`), checked where the command reads it. */
  digest: [subscriptionId: string, mode: string];
  /** The band in percentage points, checked where the command reads it. */
  rearm: [subscriptionId: string, points: number];
}
export type ButtonCommand = keyof ButtonActions;
const BUTTON_COMMANDS: ReadonlySet<string> = new Set<ButtonCommand>(['pause', 'resume', 'delete', 'enable', 'watch', 'page', 'confirm', 'cancel', 'snooze', 'unsnooze', 'digest', 'rearm', 'flow']);

/**
 * A button's data, or undefined when it would not fit both platforms (or an argument holds the
 * separator): the caller then shows no button rather than a broken one.
 */
export function encodeButton<C extends ButtonCommand>(command: C, ...args: ButtonActions[C]): string | undefined {
  const words = args.map(String);
  if (words.some((w) => w === '' || w.includes(SEPARATOR))) return undefined;
  const data = [command, ...words].join(SEPARATOR);
  return Buffer.byteLength(data) <= MAX_TELEGRAM_BYTES && data.length <= MAX_DISCORD_CHARS ? data : undefined;
}

/** A tapped button's data as the command and its words; undefined for data this protocol never wrote. */
export function decodeButton(data: string): { command: ButtonCommand; words: string[] } | undefined {
  const [command, ...words] = data.split(SEPARATOR);
  if (!command || !BUTTON_COMMANDS.has(command) || words.some((w) => w === '')) return undefined;
  return { command: command as ButtonCommand, words };
}

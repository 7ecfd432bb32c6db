import type { ServiceContext } from '../../services/context.js';
import type { Channel } from '../../services/subscriptions/index.js';

export interface ChatInfo {
  kind: 'telegram' | 'discord';
  chatId: string | number;
  isPrivate: boolean;
  /** Where `alert` sends from this chat, when the transport knows better (a Discord channel's webhook). */
  channel?: Channel;
}

export interface BotButton {
  label: string;
  /** `<command>:<argument>`, e.g. `watch:123`; run as the command `watch 123`. */
  action: string;
}

export interface BotReply {
  /** Plain text with light markdown at most. */
  text: string;
  /** The reply holds a secret: send it in a private chat only. */
  private?: boolean;
  buttons?: BotButton[][];
  /** Text for the user's private chat only (a secret asked for in a group); the transport sends it there. */
  privateMessage?: string;
  /** When the command came from a button tap: answer the tapper alone, nothing in the chat. */
  tapperOnly?: boolean;
}

export interface CommandInput {
  ctx: ServiceContext;
  chat: ChatInfo;
  /** The words after the command name. */
  args: string[];
  /** The text after the command name, as typed (spaces kept). */
  rest: string;
}

export interface Command {
  name: string;
  /** One line: `alert <market id> <type> <percent>`. */
  usage: string;
  summary: string;
  run(input: CommandInput): Promise<BotReply>;
  /** A button tap on this command is answered to the tapper alone (Telegram: a popup, no chat message). */
  answersTapPrivately?: boolean;
}

/** Bad arguments: answered with the command's usage line. */
export class UsageError extends Error {
  constructor(message = '') {
    super(message);
    this.name = 'UsageError';
  }
}

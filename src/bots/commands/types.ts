import type { Signature, Values } from './params.js';
import type { ServiceContext } from '../../services/context.js';
import type { ChannelType } from '../../domain/enums.js';
import type { Channel, ChatChannel } from '../../services/subscriptions/index.js';

export interface ChatInfo {
  kind: 'telegram' | 'discord';
  chatId: string | number;
  isPrivate: boolean;
  /** The platform's id of the user who sent this (Telegram user id, Discord user id): who owns a guided alert. */
  userId?: string;
  /** Where `alert` sends from this chat, when the transport knows better (a Discord channel's webhook, a Discord DM). */
  channel?: ChatChannel;
  /**
   * Where an alert saved by a button tap is sent, when finding it costs a platform call (a Discord
   * channel's webhook): asked only when the alert is saved.
   */
  deliveryChannel?: { type: ChannelType; resolve(): Promise<Channel> };
}

export interface BotButton {
  label: string;
  /** The tap's data, written by `encodeButton` (domain/button-actions.ts). */
  action: string;
}

export interface BotReply {
  /** Plain text with light markdown at most. */
  text: string;
  /** The reply holds a secret: send it in a private chat only. */
  private?: boolean;
  buttons?: BotButton[][];
  /**
   * Text for the user's private chat only (a secret or a personal list asked for in a group); the
   * transport sends it there, with `buttons`, and `text` in the chat (Discord: all to the caller alone).
   */
  privateMessage?: string;
  /** When the command came from a button tap: answer the tapper alone, nothing in the chat. */
  tapperOnly?: boolean;
  /** The answer is a failure (wrong word, not found): Discord shows it to the caller alone. */
  failed?: boolean;
  /**
   * When the command came from a button tap: the answer replaces the message the button is on
   * (its text and buttons) instead of posting a new one. Ignored for typed commands.
   */
  edit?: boolean;
  /**
   * Ask the tapper to type a number (Discord opens a modal with one text field; Telegram shows this
   * reply's text and buttons, and the user replies to that message). `action` is button data:
   * the typed answer is run with it by `runTypedAnswer`.
   */
  askNumber?: { title: string; label: string; action: string; /** An example in the empty field (Discord), `62.5` unless said. */ placeholder?: string };
}

export interface CommandInput {
  ctx: ServiceContext;
  chat: ChatInfo;
  /** The declared parameters, parsed and checked (see params.ts). */
  values: Values;
  /** The subcommand, for a command declared with subcommands. */
  subcommand?: string;
  /** The page of a list asked for (1 when typed; a Next/Previous button carries another). */
  page: number;
  /** The user tapped Confirm under this command's "Delete …?" question: do it. */
  confirmed: boolean;
}

export interface Command extends Signature {
  summary: string;
  run(input: CommandInput): Promise<BotReply>;
  /** A button tap on this command is answered to the tapper alone (Telegram: a popup, no chat message). */
  answersTapPrivately?: boolean;
  /** Its answer is for the whole chat (help, search); every other answer is about the caller's own data. */
  publicAnswer?: boolean;
  /** A list of the caller's own things: asked for in a group, it is sent to the caller privately. */
  personal?: boolean;
}

/** A refusal whose message is already the chat's answer (a missing platform permission). */
export class ChatRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChatRefusal';
  }
}

/** Bad arguments: answered with the command's usage line. */
export class UsageError extends Error {
  constructor(message = '') {
    super(message);
    this.name = 'UsageError';
  }
}

import type { InlineKeyboardMarkup } from 'grammy/types';
import { cutLines } from '../../text/cut.js';
import type { BotReply } from '../commands/index.js';
import type { OddsContext } from './context.js';

const MAX_TEXT = 4096; // Telegram's message limit

function keyboard(reply: BotReply): InlineKeyboardMarkup | undefined {
  if (!reply.buttons || reply.buttons.length === 0) return undefined;
  return { inline_keyboard: reply.buttons.map((row) => row.map((b) => ({ text: b.label, callback_data: b.action }))) };
}

/** Sends a command reply: secrets to the user's private chat, the rest to this chat with its buttons. */
export async function sendReply(ctx: OddsContext, reply: BotReply): Promise<void> {
  let text = reply.text;
  if (reply.privateMessage && ctx.from) {
    try {
      await ctx.api.sendMessage(ctx.from.id, reply.privateMessage);
    } catch (err) {
      // The user never opened a private chat with the bot: Telegram refuses the message.
      ctx.log.warn({ err }, 'could not send a private message');
      text = 'I cannot write to you privately yet: open a private chat with me, press Start, and send /token there.';
    }
  }
  const markup = keyboard(reply);
  await ctx.reply(cutLines(text, MAX_TEXT), markup ? { reply_markup: markup } : {});
}

/**
 * Replaces the message a tapped button is on with the reply (text and buttons; no buttons removes
 * them). Falls back to a new message when the tap carries no message (too old for Telegram to send).
 */
export async function editReply(ctx: OddsContext, reply: BotReply): Promise<void> {
  const message = ctx.callbackQuery?.message;
  if (!message) return sendReply(ctx, reply);
  await editMessage(ctx, message.message_id, reply);
}

/** Replaces one of this chat's messages with the reply (text and buttons; no buttons removes them). */
export async function editMessage(ctx: OddsContext, messageId: number, reply: BotReply): Promise<void> {
  const markup = keyboard(reply);
  await ctx.api.editMessageText(ctx.chat!.id, messageId, reply.text.slice(0, MAX_TEXT), markup ? { reply_markup: markup } : {});
}

import type { InlineKeyboardMarkup } from 'grammy/types';
import { cutLines } from '../../text/cut.js';
import type { BotReply } from '../commands/index.js';
import type { OddsContext } from './context.js';

const MAX_TEXT = 4096; // Telegram's message limit

function keyboard(reply: BotReply): InlineKeyboardMarkup | undefined {
  if (!reply.buttons || reply.buttons.length === 0) return undefined;
  return { inline_keyboard: reply.buttons.map((row) => row.map((b) => ({ text: b.label, callback_data: b.action }))) };
}

export const OPEN_PRIVATE_CHAT = 'I cannot write to you privately yet: open a private chat with me, press Start, and ask there again.';

/**
 * Sends a command reply: a private message (with the reply's buttons) to the user's private chat
 * and the short public text here, or the whole reply to this chat.
 */
export async function sendReply(ctx: OddsContext, reply: BotReply): Promise<void> {
  const markup = keyboard(reply);
  if (!reply.privateMessage || !ctx.from) {
    await ctx.reply(cutLines(reply.text, MAX_TEXT), markup ? { reply_markup: markup } : {});
    return;
  }
  let text = reply.text;
  try {
    await ctx.api.sendMessage(ctx.from.id, cutLines(reply.privateMessage, MAX_TEXT), markup ? { reply_markup: markup } : {});
  } catch (err) {
    // The user never opened a private chat with the bot: Telegram refuses the message.
    ctx.log.warn({ err }, 'could not send a private message');
    text = OPEN_PRIVATE_CHAT;
  }
  await ctx.reply(cutLines(text, MAX_TEXT));
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

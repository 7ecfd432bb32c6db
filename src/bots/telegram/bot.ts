import { autoRetry } from '@grammyjs/auto-retry';
import { apiThrottler } from '@grammyjs/transformer-throttler';
import { Bot } from 'grammy';
import { findOrCreateChatAccount } from '../../services/accounts/index.js';
import type { SystemDeps } from '../../services/context.js';
import { REFUSED, RefusedOnce, telegramUserAllowed } from '../allowlist.js';
import { COMMANDS, FREE_TEXT_HINT, runButton, runCommand, runTypedAnswer } from '../commands/index.js';
import { chatInfo, type OddsContext } from './context.js';
import { editMessage, editReply, sendReply } from './reply.js';

export interface TelegramBotOptions {
  token: string;
  /** The Bot API base (TELEGRAM_API_URL); a local fake in tests. */
  apiRoot: string;
  deps: SystemDeps;
  /** Skips getMe at init (tests). */
  botInfo?: Bot['botInfo'];
}

/** The command menu Telegram shows, from the same list the command layer runs. */
export const TELEGRAM_MENU = COMMANDS.map((c) => ({ command: c.name, description: c.summary }));

/** True when `/cmd@SomeBot` names another bot (group chats with several bots). */
function addressedElsewhere(text: string, username: string): boolean {
  const at = /^\/\S+?@(\S+)/.exec(text);
  return at !== null && at[1]!.toLowerCase() !== username.toLowerCase();
}

/** A grammY bot wired to the shared command layer. Built here; connected by `createTelegramEndpoint`'s connector. */
export function createTelegramBot({ token, apiRoot, deps, botInfo }: TelegramBotOptions): Bot<OddsContext> {
  // A request is given up after a minute (longer than a 30 s long poll), not grammY's 500 s default.
  const bot = new Bot<OddsContext>(token, { client: { apiRoot, timeoutSeconds: 60 }, ...(botInfo ? { botInfo } : {}) });
  // Rate limits and 5xx are retried here; network errors are not (the plugin would retry them
  // forever): they reach the bot's supervisor, or the update's error boundary.
  bot.api.config.use(autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 30, rethrowHttpErrors: true }));
  bot.api.config.use(apiThrottler());

  const refused = new RefusedOnce();
  // The transport adapter: who is calling, as a ServiceContext, and a logger for this update.
  bot.use(async (ctx, next) => {
    ctx.log = deps.logger.child({ telegramUpdateId: ctx.update.update_id });
    if (!ctx.from || ctx.from.is_bot) return;
    const telegramUserId = String(ctx.from.id);
    if (!telegramUserAllowed(deps.config, telegramUserId)) {
      // Before the account lookup: nothing is stored for someone the operator did not admit.
      if (ctx.callbackQuery) {
        // A tap must be answered or its spinner turns forever; the popup is the tapper's alone.
        await ctx.answerCallbackQuery({ text: REFUSED.slice(0, 200), show_alert: true });
        return;
      }
      const addressed = ctx.chat?.type === 'private' || ctx.message?.entities?.some((e) => e.type === 'bot_command' && e.offset === 0);
      if (addressed && refused.first(telegramUserId)) {
        ctx.log.info({ telegramUserId }, 'telegram: a user not in BOT_ALLOWED_TELEGRAM_USERS was refused (told once)');
        await ctx.reply(REFUSED);
      }
      return;
    }
    const account = await findOrCreateChatAccount(deps, { kind: 'telegram', userId: telegramUserId });
    ctx.services = {
      database: deps.database,
      config: deps.config,
      logger: ctx.log,
      account,
    };
    await next();
  });

  bot.on('message:entities:bot_command', async (ctx) => {
    const text = ctx.message.text ?? '';
    const chat = chatInfo(ctx);
    if (!chat || !text.startsWith('/') || addressedElsewhere(text, ctx.me.username)) return;
    await sendReply(ctx, await runCommand(ctx.services, chat, text));
  });

  // Words without a command in a private chat: say what to send instead of staying silent. In a
  // group the chat is the members' own: the bot only listens for commands there.
  bot.on('message:text', async (ctx) => {
    if (ctx.message.text.startsWith('/')) return;
    // A reply to one of our messages that asked for a number ("Type a number"): that message's
    // buttons carry what the number is for, so nothing was kept while the user typed.
    const asked = ctx.message.reply_to_message;
    const chat = chatInfo(ctx);
    if (chat && asked?.from?.id === ctx.me.id && asked.reply_markup) {
      const actions = asked.reply_markup.inline_keyboard.flat().flatMap((b) => ('callback_data' in b && b.callback_data ? [b.callback_data] : []));
      const reply = await runTypedAnswer(ctx.services, chat, actions, ctx.message.text);
      if (reply) {
        if (reply.failed) await ctx.reply(reply.text, { reply_parameters: { message_id: ctx.message.message_id } });
        else await editMessage(ctx, asked.message_id, reply);
        return;
      }
    }
    if (ctx.chat.type !== 'private') return;
    await ctx.reply(FREE_TEXT_HINT);
  });

  bot.on('callback_query:data', async (ctx) => {
    const chat = chatInfo(ctx);
    if (!chat) {
      await ctx.answerCallbackQuery({ text: 'This button no longer works here' });
      return;
    }
    const reply = await runButton(ctx.services, chat, ctx.callbackQuery.data);
    if (reply.tapperOnly) {
      // Telegram's only private answer in a group: the callback's popup (at most 200 characters).
      await ctx.answerCallbackQuery({ text: reply.text.slice(0, 200), show_alert: true });
      return;
    }
    if (reply.edit) {
      // The message itself shows the answer: the callback only stops the button's spinner.
      await ctx.answerCallbackQuery();
      await editReply(ctx, reply);
      return;
    }
    await ctx.answerCallbackQuery({ text: reply.text.split('\n')[0]!.slice(0, 190) });
    await sendReply(ctx, reply);
  });

  // The one error boundary: anything the command layer did not answer (network, account lookup).
  bot.catch(async (err) => {
    const log = err.ctx.log ?? deps.logger;
    log.error({ err: err.error, updateId: err.ctx.update.update_id }, 'telegram update failed');
    await err.ctx.reply('Something went wrong; try again').catch(() => {});
  });
  return bot;
}

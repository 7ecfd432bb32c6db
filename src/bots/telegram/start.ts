import { webhookCallback, type Bot } from 'grammy';
import type { RequestHandler } from 'express';
import type { SystemDeps } from '../../services/context.js';
import { createTelegramBot, TELEGRAM_MENU } from './bot.js';
import type { OddsContext } from './context.js';

export interface RunningTelegramBot {
  bot: Bot<OddsContext>;
  /** In webhook mode: the express handler Telegram's POSTs must reach (mount it at the webhook path). */
  webhookHandler?: RequestHandler;
  stop(): Promise<void>;
}

/** Long polling by default; webhook mode when TELEGRAM_WEBHOOK_URL is set. */
export async function startTelegramBot(deps: SystemDeps): Promise<RunningTelegramBot> {
  const { config, logger } = deps;
  const token = config.TELEGRAM_BOT_TOKEN;
  if (!token) throw new Error('TELEGRAM_BOT_TOKEN is not set');
  const bot = createTelegramBot({ token, apiRoot: config.TELEGRAM_API_URL, deps });
  await bot.init();
  await bot.api.setMyCommands(TELEGRAM_MENU);

  if (config.TELEGRAM_WEBHOOK_URL) {
    await bot.api.setWebhook(config.TELEGRAM_WEBHOOK_URL);
    logger.info({ username: bot.botInfo.username }, 'telegram bot started (webhook)');
    return {
      bot,
      webhookHandler: webhookCallback(bot, 'express') as RequestHandler,
      stop: async () => {},
    };
  }

  // bot.start() resolves only when polling stops: run it in the background.
  const polling = bot
    .start({ drop_pending_updates: false, onStart: (me) => logger.info({ username: me.username }, 'telegram bot started (polling)') })
    .catch((err) => logger.error({ err }, 'telegram polling stopped with an error'));
  return {
    bot,
    async stop() {
      if (bot.isRunning()) await bot.stop();
      await polling;
    },
  };
}

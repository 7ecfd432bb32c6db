import { createHash } from 'node:crypto';
import { webhookCallback, type Bot } from 'grammy';
import type { RequestHandler } from 'express';
import type { SystemDeps } from '../../services/context.js';
import { createTelegramBot, TELEGRAM_MENU } from './bot.js';
import type { OddsContext } from './context.js';

export interface RunningTelegramBot {
  bot: Bot<OddsContext>;
  /** In webhook mode: the express handler Telegram's POSTs must reach, and the path to mount it at. */
  webhook?: { path: string; handler: RequestHandler };
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
    // Telegram echoes this secret in a header on every webhook call; others' POSTs are refused.
    const secretToken = webhookSecret(token);
    await bot.api.setWebhook(config.TELEGRAM_WEBHOOK_URL, { secret_token: secretToken });
    logger.info({ username: bot.botInfo.username }, 'telegram bot started (webhook)');
    const handler = webhookCallback(bot, 'express', { secretToken }) as RequestHandler;
    return { bot, webhook: { path: new URL(config.TELEGRAM_WEBHOOK_URL).pathname, handler }, stop: async () => {} };
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

/** A stable webhook secret derived from the bot token (Telegram allows A-Z, a-z, 0-9, _ and -). */
export function webhookSecret(token: string): string {
  return createHash('sha256').update(`oddswatch-telegram-webhook:${token}`).digest('hex');
}

import { createHash } from 'node:crypto';
import { GrammyError, webhookCallback, type Bot } from 'grammy';
import type { RequestHandler } from 'express';
import type { SystemDeps } from '../../services/context.js';
import { errorText } from '../error-text.js';
import { closeWithin, type BotConnector, type BotSession, type SessionEvents } from '../supervisor.js';
import { createTelegramBot, TELEGRAM_MENU } from './bot.js';
import type { OddsContext } from './context.js';

export interface TelegramBotEndpoint {
  bot: Bot<OddsContext>;
  /** In webhook mode: the express handler Telegram's POSTs must reach, and the path to mount it at. */
  webhook?: { path: string; handler: RequestHandler };
  /** Connects it (getMe, the command menu, then polling or the webhook registration): for the supervisor. */
  connector: BotConnector;
}

/** grammY's node build types its signals with the abort-controller polyfill; it accepts Node's own. */
const asGrammySignal = (signal: AbortSignal) => signal as unknown as Parameters<Bot['api']['getMe']>[0];

/** Telegram answers 401 to a revoked or wrong token and 404 to one that is not shaped like a token. */
const isRefusedToken = (err: unknown) => err instanceof GrammyError && (err.error_code === 401 || err.error_code === 404) && err.method === 'getMe';
/** While polling, 401 means the token was revoked meanwhile. */
const isFatal = (err: unknown) => isRefusedToken(err) || (err instanceof GrammyError && err.error_code === 401);

/**
 * The Telegram bot, built without touching the network: long polling by default, webhook mode when
 * TELEGRAM_WEBHOOK_URL is set. Nothing here waits on Telegram; the supervisor runs `connector`.
 */
export function createTelegramEndpoint(deps: SystemDeps): TelegramBotEndpoint {
  const { config, logger } = deps;
  const token = config.TELEGRAM_BOT_TOKEN;
  if (!token) throw new Error('TELEGRAM_BOT_TOKEN is not set');
  const bot = createTelegramBot({ token, apiRoot: config.TELEGRAM_API_URL, deps });
  const describe = (err: unknown) =>
    err instanceof GrammyError ? `Telegram answered ${err.error_code} to ${err.method}: ${err.description}` : errorText(err, [token]);

  // Polling failures are retried by grammY every few seconds; they are watched here to show them.
  let watcher: SessionEvents | undefined;
  bot.api.config.use(async (prev, method, payload, signal) => {
    try {
      const result = await prev(method, payload, signal);
      if (method === 'getUpdates') watcher?.restored();
      return result;
    } catch (err) {
      if (method === 'getUpdates' && !signal?.aborted) watcher?.degraded(err);
      throw err;
    }
  });

  async function introduce(signal: AbortSignal) {
    bot.botInfo = await bot.api.getMe(asGrammySignal(signal));
    await bot.api.setMyCommands(TELEGRAM_MENU, undefined, asGrammySignal(signal)).catch((err: unknown) => {
      if (signal.aborted) throw err;
      logger.warn({ error: describe(err) }, 'telegram: setting the command menu failed; commands still work');
    });
  }

  const webhookUrl = config.TELEGRAM_WEBHOOK_URL;
  if (webhookUrl) {
    // Telegram echoes this secret in a header on every webhook call; others' POSTs are refused.
    const secretToken = webhookSecret(token);
    const handler = webhookCallback(bot, 'express', { secretToken }) as RequestHandler;
    const connector: BotConnector = {
      platform: 'telegram',
      mode: 'webhook',
      isFatal,
      describe,
      async connect(signal) {
        await introduce(signal);
        await bot.api.setWebhook(webhookUrl, { secret_token: secretToken }, asGrammySignal(signal));
        logger.info({ username: bot.botInfo.username }, 'telegram bot started (webhook)');
        // Telegram calls us from now on: there is no connection of ours to lose.
        return { ended: new Promise(() => {}), close: async () => {} };
      },
    };
    return { bot, webhook: { path: new URL(webhookUrl).pathname, handler }, connector };
  }

  const connector: BotConnector = {
    platform: 'telegram',
    mode: 'polling',
    isFatal,
    describe,
    async connect(signal, events): Promise<BotSession> {
      await introduce(signal);
      let started!: () => void;
      const onStart = new Promise<void>((resolve) => (started = resolve));
      // bot.start() resolves only when polling stops (or rejects: 401, or 409 when another poller uses the token).
      const polling = bot.start({ drop_pending_updates: false, onStart: () => started() });
      const ended = polling.then(
        () => new Error('polling stopped'),
        (err: unknown) => err,
      );
      const stop = () =>
        closeWithin(2000, async () => {
          watcher = undefined;
          if (bot.isRunning()) await bot.stop();
          await polling.catch(() => {});
        });
      const aborted = new Promise<never>((_, reject) => {
        const fail = () => reject(new Error('connect aborted'));
        if (signal.aborted) fail();
        else signal.addEventListener('abort', fail, { once: true });
      });
      try {
        await Promise.race([onStart, ended.then((err) => Promise.reject(err)), aborted]);
      } catch (err) {
        await stop();
        throw err;
      }
      watcher = events;
      logger.info({ username: bot.botInfo.username }, 'telegram bot started (polling)');
      return { ended, close: stop };
    },
  };
  return { bot, connector };
}

/** A stable webhook secret derived from the bot token (Telegram allows A-Z, a-z, 0-9, _ and -). */
export function webhookSecret(token: string): string {
  return createHash('sha256').update(`oddswatch-telegram-webhook:${token}`).digest('hex');
}

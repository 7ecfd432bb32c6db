import type { Config } from '../../config.js';
import type { ChannelType } from '../../domain/enums.js';
import { createDiscordSender } from './discord.js';
import { createInAppSender } from './in-app.js';
import { createTelegramSender } from './telegram.js';
import type { ChannelSender } from './types.js';
import { createWebhookSender } from './webhook.js';

export type { ChannelSender, DeliveryJob, SendResult } from './types.js';

export interface SendersOptions {
  /** ALLOW_PRIVATE_URLS: let Webhook and Discord URLs reach loopback and private addresses. */
  allowPrivateUrls: boolean;
  /** WEBHOOK_TIMEOUT_MS, also used for Discord and Telegram. */
  timeoutMs?: number;
  telegram?: { botToken?: string; apiRoot?: string };
  /**
   * DISCORD_APPLICATION_ID: alerts through this application's webhooks carry Pause and Delete buttons.
   * DISCORD_TOKEN and DISCORD_API_URL: alerts made in a direct message are posted there by the bot.
   */
  discord?: { applicationId?: string; botToken?: string; apiUrl?: string };
}

export type Senders = Record<ChannelType, ChannelSender>;

/** The senders as the settings configure them: the worker's, and the API's test sends. */
export function sendersFromConfig(
  config: Pick<
    Config,
    'ALLOW_PRIVATE_URLS' | 'WEBHOOK_TIMEOUT_MS' | 'TELEGRAM_BOT_TOKEN' | 'TELEGRAM_API_URL' | 'DISCORD_APPLICATION_ID' | 'DISCORD_TOKEN' | 'DISCORD_API_URL'
  >,
): Senders {
  return createSenders({
    allowPrivateUrls: config.ALLOW_PRIVATE_URLS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    telegram: { botToken: config.TELEGRAM_BOT_TOKEN, apiRoot: config.TELEGRAM_API_URL },
    discord: { applicationId: config.DISCORD_APPLICATION_ID, botToken: config.DISCORD_TOKEN, apiUrl: config.DISCORD_API_URL },
  });
}

export function createSenders(opts: SendersOptions): Senders {
  const { allowPrivateUrls: allowPrivate, timeoutMs } = opts;
  return {
    'In App': createInAppSender(),
    Webhook: createWebhookSender({ allowPrivate, timeoutMs }),
    Discord: createDiscordSender({ allowPrivate, timeoutMs, ...opts.discord }),
    Telegram: createTelegramSender({ ...opts.telegram, timeoutMs }),
  } satisfies Record<ChannelType, ChannelSender>;
}

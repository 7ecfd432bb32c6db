import type { ChannelType } from '../../domain/enums.js';
import { createDiscordSender } from './discord.js';
import { createInAppSender } from './in-app.js';
import { createTelegramSender } from './telegram.js';
import type { ChannelSender } from './types.js';
import { createWebhookSender } from './webhook.js';

export type { ChannelSender, DeliveryJob, SendOutcome, SendResult, ChannelSettings } from './types.js';
export { formatDiscordEmbed } from './discord.js';
export { formatTelegramMessage } from './telegram.js';

export interface SendersOptions {
  /** ALLOW_PRIVATE_URLS: let Webhook and Discord URLs reach loopback and private addresses. */
  allowPrivateUrls: boolean;
  /** WEBHOOK_TIMEOUT_MS, also used for Discord and Telegram. */
  timeoutMs?: number;
  telegram?: { botToken?: string; apiRoot?: string };
  /** DISCORD_APPLICATION_ID: alerts through this application's webhooks carry Pause and Delete buttons. */
  discord?: { applicationId?: string };
}

export type Senders = Record<ChannelType, ChannelSender>;

export function createSenders(opts: SendersOptions): Senders {
  const { allowPrivateUrls: allowPrivate, timeoutMs } = opts;
  return {
    'In App': createInAppSender(),
    Webhook: createWebhookSender({ allowPrivate, timeoutMs }),
    Discord: createDiscordSender({ allowPrivate, timeoutMs, applicationId: opts.discord?.applicationId }),
    Telegram: createTelegramSender({ ...opts.telegram, timeoutMs }),
  } satisfies Record<ChannelType, ChannelSender>;
}

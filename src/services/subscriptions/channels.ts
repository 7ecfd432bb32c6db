import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { subscriptionChannels, type ChannelSettings } from '../../db/schema/index.js';
import type { ServiceContext } from '../context.js';
import { limitExceeded } from '../errors.js';
import { outboundUrlCheck } from '../outbound-urls.js';
import type { ChatChannel } from './schemas.js';

export interface ChannelChecks {
  maxChannels: number;
  /** Refuses URLs that must not be called (SSRF guard); throws a validation error. */
  checkUrl(field: string, url: string): Promise<void>;
}

/** Validates channels beyond their shape and drops exact duplicates. */
export async function prepareChannels<C extends ChatChannel>(channels: C[], checks: ChannelChecks): Promise<C[]> {
  const unique = [...new Map(channels.map((c) => [JSON.stringify([c.type, c.settings ?? {}]), c])).values()];
  if (unique.length > checks.maxChannels) {
    throw limitExceeded(`Channel limit exceeded: at most ${checks.maxChannels} channels per subscription (MAX_CHANNELS_PER_SUBSCRIPTION)`, 'channel', checks.maxChannels);
  }
  for (const [i, c] of unique.entries()) {
    if (c.type === 'Webhook') await checks.checkUrl(`channels.${i}.settings.webhookUrl`, c.settings.webhookUrl);
    // A DM channel (discordChannelId) goes to Discord's own API, never to a stored URL.
    if (c.type === 'Discord' && 'discordWebhookUrl' in c.settings) {
      await checks.checkUrl(`channels.${i}.settings.discordWebhookUrl`, c.settings.discordWebhookUrl);
    }
  }
  return unique;
}

/** The channel checks with the caller's limits and the SSRF guard. */
export const checkChannels = <C extends ChatChannel>(ctx: ServiceContext, channels: C[]) =>
  prepareChannels(channels, { maxChannels: ctx.config.MAX_CHANNELS_PER_SUBSCRIPTION, checkUrl: outboundUrlCheck(ctx) });

/** Replaces a subscription's channels (a channel kept as it was keeps its status: see channelStatus). */
export async function writeChannels(tx: Tx, subscriptionId: string, channels: ChatChannel[]): Promise<void> {
  await tx.delete(subscriptionChannels).where(eq(subscriptionChannels.subscriptionId, subscriptionId));
  await channelRows(tx, subscriptionId, channels);
}

/** The insert of a subscription's channels. */
function channelRows(tx: Tx, subscriptionId: string, channels: ChatChannel[]) {
  return tx.insert(subscriptionChannels).values(
    channels.map((c, position) => {
      const settings: ChannelSettings = c.settings ?? {};
      return {
        subscriptionId,
        position,
        type: c.type,
        settings,
      };
    }),
  );
}

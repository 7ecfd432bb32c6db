import { DiscordAPIError, Routes, type REST } from 'discord.js';
import type { Channel } from '../../services/subscriptions/index.js';
import { ChatRefusal } from '../commands/types.js';

export const NEED_WEBHOOK_PERMISSION = 'I need the Manage Webhooks permission in this channel to post alerts here';

/** The bot may not make a webhook in this channel: answered with NEED_WEBHOOK_PERMISSION. */
export class NeedsPermission extends ChatRefusal {}

const WEBHOOK_NAME = 'Oddswatch';
interface Webhook {
  id: string;
  name?: string | null;
  token?: string;
  url?: string;
  application_id?: string | null;
}

/**
 * The webhook in a guild channel that alerts post to: made once, then remembered. `fresh` asks
 * Discord again instead of trusting the memory: a webhook deleted in Discord is then made anew.
 */
export function channelWebhooks(rest: REST, applicationId: string): (channelId: string, fresh?: boolean) => Promise<Channel> {
  const webhooks = new Map<string, string>(); // channel id → webhook URL
  return async (channelId, fresh = false) => {
    let url = fresh ? undefined : webhooks.get(channelId);
    if (!url) {
      try {
        // Reuse ours after a restart (a channel holds at most 15 webhooks); otherwise create one.
        const existing = ((await rest.get(Routes.channelWebhooks(channelId))) as Webhook[]).find(
          (w) => w.name === WEBHOOK_NAME && w.application_id === applicationId && w.token,
        );
        const hook = existing ?? ((await rest.post(Routes.channelWebhooks(channelId), { body: { name: WEBHOOK_NAME } })) as Webhook);
        url = hook.url ?? `https://discord.com/api/webhooks/${hook.id}/${hook.token}`;
      } catch (err) {
        if (err instanceof DiscordAPIError && err.status === 403) throw new NeedsPermission(NEED_WEBHOOK_PERMISSION);
        throw err;
      }
      webhooks.set(channelId, url);
    }
    return { type: 'Discord', settings: { discordWebhookUrl: url } };
  };
}

import { postJson } from '../../net/http-post.js';
import { httpError, isSuccess, networkFailure, parseJsonObject, parseRetryAfter } from './http-result.js';
import { summarizeNotification } from './summary.js';
import type { ChannelSender, DeliveryJob, SendResult } from './types.js';

export interface DiscordEmbed {
  title: string;
  url: string;
  description: string;
  color: number;
  fields: { name: string; value: string; inline?: boolean }[];
  timestamp?: string;
  footer: { text: string };
}

const COLORS = { price: 0x5865f2, opened: 0x57f287, closed: 0xed4245 };

// Discord's embed limits: title 256, field value 1024 characters.
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function formatDiscordEmbed(payload: Record<string, unknown>, links: DeliveryJob['links']): DiscordEmbed {
  const s = summarizeNotification(payload);
  const fields: DiscordEmbed['fields'] = [];
  const add = (name: string, value: string | undefined, inline = true) => {
    if (value) fields.push({ name, value: cut(value, 1024), inline });
  };
  if (s.kind === 'price') {
    add('Price', s.price);
    add('Threshold', s.threshold);
    add('Type', s.headline);
  } else {
    add('Outcomes', s.outcomes);
  }
  if (s.title !== s.eventTitle) add('Event', s.eventTitle, false);
  add('Watchlist', s.watchlistName);
  if (links.chartUrl) add('Chart', `[24 h price chart](${links.chartUrl})`);
  return {
    title: cut(s.title, 256),
    url: links.venueUrl,
    description: s.kind === 'price' ? `**${s.headline}** alert` : `**${s.headline}**`,
    color: s.kind === 'price' ? COLORS.price : s.headline.endsWith('opened') ? COLORS.opened : COLORS.closed,
    fields,
    timestamp: s.detectedAt,
    footer: { text: 'Oddswatch' },
  };
}

function withWait(rawUrl: string): string {
  const url = new URL(rawUrl);
  url.searchParams.set('wait', 'true');
  return url.toString();
}

export interface DiscordSenderOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
}

export function createDiscordSender({ allowPrivate, timeoutMs = 5000 }: DiscordSenderOptions): ChannelSender {
  return {
    async send(job: DeliveryJob): Promise<SendResult> {
      const url = job.settings.discordWebhookUrl;
      if (!url) return { outcome: 'failed', error: 'The Discord channel has no discordWebhookUrl', durationMs: 0 };
      let target: string;
      try {
        target = withWait(url);
      } catch {
        return { outcome: 'failed', error: 'The discordWebhookUrl is not a valid URL', durationMs: 0 };
      }
      const body = {
        username: 'Oddswatch',
        embeds: [formatDiscordEmbed(job.payload, job.links)],
        allowed_mentions: { parse: [] }, // market text must never ping @everyone
      };
      try {
        const response = await postJson(target, body, { allowPrivate, timeoutMs });
        const { statusCode, durationMs } = response;
        if (isSuccess(statusCode)) return { outcome: 'sent', statusCode, durationMs };
        if (statusCode === 429) {
          const retryAfter = parseJsonObject(response.body)?.['retry_after'];
          const retryAfterMs =
            typeof retryAfter === 'number' ? Math.ceil(retryAfter * 1000) : parseRetryAfter(response.headers['retry-after']);
          return { outcome: 'retry', statusCode, durationMs, retryAfterMs, error: 'Discord rate limit (HTTP 429)' };
        }
        if (statusCode === 401 || statusCode === 404) {
          const error = `Discord webhook was deleted or its token is invalid (HTTP ${statusCode})`;
          return { outcome: 'failed', statusCode, durationMs, error };
        }
        return { outcome: statusCode >= 500 ? 'retry' : 'failed', statusCode, durationMs, error: httpError(response) };
      } catch (err) {
        return networkFailure(err);
      }
    },
  };
}

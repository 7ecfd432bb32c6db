import { getJson, postJson } from '../../net/http-post.js';
import { httpError, isSuccess, networkFailure, parseJsonObject } from './http-result.js';
import { retryAfterHeaderMs, retryAfterSecondsMs } from '../../net/retry-after.js';
import { summarizeHealthNotice, summarizeNotification, TEST_LABEL } from './summary.js';
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

export function formatDiscordEmbed(payload: Record<string, unknown>, links: DeliveryJob['links'], test = false): DiscordEmbed {
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
  const description = s.kind === 'price' ? `**${s.headline}** alert` : `**${s.headline}**`;
  return {
    title: cut(s.title, 256),
    url: links.venueUrl,
    description: test ? `**${TEST_LABEL}**\n${description}` : description,
    color: s.kind === 'price' ? COLORS.price : s.headline.endsWith('opened') ? COLORS.opened : COLORS.closed,
    fields,
    timestamp: s.detectedAt,
    footer: { text: 'Oddswatch' },
  };
}

type DiscordButton =
  | { type: 2; style: 5; label: string; url: string }
  | { type: 2; style: 2 | 4; label: string; custom_id: string };
export interface DiscordActionRow {
  type: 1;
  components: DiscordButton[];
}

const LINK = 5;
const SECONDARY = 2;
const DANGER = 4;
const SUCCESS = 3;

/**
 * The buttons under an alert: links to the venue page and the chart for every webhook; Pause and
 * Delete only when `interactive` (a webhook our application owns, so the clicks reach our bot).
 * Their custom_id is the command-layer action the bot runs on a click, as for Telegram.
 */
export function formatDiscordComponents(payload: Record<string, unknown>, links: DeliveryJob['links'], interactive: boolean): DiscordActionRow[] {
  const linkRow: DiscordButton[] = [{ type: 2, style: LINK, label: 'Open market', url: links.venueUrl }];
  if (links.chartUrl) linkRow.push({ type: 2, style: LINK, label: 'Chart', url: links.chartUrl });
  const rows: DiscordActionRow[] = [{ type: 1, components: linkRow }];
  const subscriptionId = payload.subscriptionId;
  if (interactive && typeof subscriptionId === 'string') {
    rows.push({
      type: 1,
      components: [
        { type: 2, style: SECONDARY, label: 'Pause alert', custom_id: `pause:${subscriptionId}` },
        { type: 2, style: DANGER, label: 'Delete alert', custom_id: `delete:${subscriptionId}` },
      ],
    });
  }
  return rows;
}

/** `…/webhooks/{id}/{token}`, with or without /api/v10. */
const WEBHOOK_PATH = /\/webhooks\/\d+\/[^/]+\/?$/;
const MAX_CACHED_WEBHOOKS = 10_000;
/** After a failed ownership lookup, alerts to that webhook go without Pause and Delete this long. */
const FAILED_LOOKUP_RETRY_MS = 60_000;

export interface DiscordSenderOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  /**
   * DISCORD_APPLICATION_ID. When set, the sender asks Discord once per webhook whether this
   * application owns it: only then can the message carry Pause and Delete buttons (Discord drops
   * interactive components from other webhooks, and their clicks would go to another application).
   */
  applicationId?: string;
  /** The clock for the lookup cache (tests). */
  now?: () => number;
}

export function createDiscordSender({ allowPrivate, timeoutMs = 5000, applicationId, now = Date.now }: DiscordSenderOptions): ChannelSender {
  // Keyed by the whole webhook URL (host, id and token), not the id alone: an answer from one host
  // must not vouch for a webhook id that some other stored URL points at.
  const owned = new Map<string, { mine: boolean; until: number }>(); // webhook URL → made by our application

  function remember(key: string, mine: boolean, forMs: number): boolean {
    owned.delete(key); // re-inserted last: the oldest entry is the first one evicted
    if (owned.size >= MAX_CACHED_WEBHOOKS) owned.delete(owned.keys().next().value!);
    owned.set(key, { mine, until: now() + forMs });
    return mine;
  }

  async function ownedByUs(webhook: URL): Promise<boolean> {
    if (!applicationId || !WEBHOOK_PATH.test(webhook.pathname)) return false;
    const lookup = new URL(webhook);
    lookup.search = '';
    lookup.hash = '';
    const key = lookup.toString();
    const known = owned.get(key);
    if (known && known.until > now()) return known.mine;
    try {
      // Get Webhook with Token: no bot token needed, so a worker without the bot can ask too.
      const response = await getJson(lookup, { allowPrivate, timeoutMs });
      const answer = isSuccess(response.statusCode) ? parseJsonObject(response.body) : undefined;
      // A failure is remembered briefly: every alert to an unreachable webhook would otherwise
      // pay a lookup (up to the timeout) first. The send below reports a deleted webhook itself.
      if (!answer) return remember(key, false, FAILED_LOOKUP_RETRY_MS);
      return remember(key, answer['application_id'] === applicationId, Infinity);
    } catch {
      // The lookup only decides the buttons; it must never keep the alert from going out.
      return remember(key, false, FAILED_LOOKUP_RETRY_MS);
    }
  }

  return {
    async send(job: DeliveryJob): Promise<SendResult> {
      const url = job.settings.discordWebhookUrl;
      if (!url) return { outcome: 'failed', error: 'The Discord channel has no discordWebhookUrl', durationMs: 0 };
      let webhook: URL;
      try {
        webhook = new URL(url);
      } catch {
        return { outcome: 'failed', error: 'The discordWebhookUrl is not a valid URL', durationMs: 0 };
      }
      const target = new URL(webhook);
      target.searchParams.set('wait', 'true');
      // Without it Discord ignores the components of a webhook message.
      target.searchParams.set('with_components', 'true');
      // An endpoint-health notice is about the account's channel, not a market: no rule buttons.
      const notice = summarizeHealthNotice(job.payload);
      const body = notice
        ? {
            username: 'Oddswatch',
            embeds: [{ title: notice.title, description: cut(notice.message, 4096), color: COLORS.closed, footer: { text: 'Oddswatch' } }],
            // Re-enable, like Pause and Delete, only where the clicks reach our bot.
            ...(notice.reEnableAction && (await ownedByUs(webhook))
              ? { components: [{ type: 1, components: [{ type: 2, style: SUCCESS, label: 'Re-enable', custom_id: notice.reEnableAction }] }] }
              : {}),
            allowed_mentions: { parse: [] },
          }
        : {
            username: 'Oddswatch',
            embeds: [formatDiscordEmbed(job.payload, job.links, job.test)],
            // A test has no rule behind it to pause or delete.
            components: formatDiscordComponents(job.payload, job.links, !job.test && (await ownedByUs(webhook))),
            allowed_mentions: { parse: [] }, // market text must never ping @everyone
          };
      try {
        const response = await postJson(target, body, { allowPrivate, timeoutMs });
        const { statusCode, durationMs } = response;
        if (isSuccess(statusCode)) return { outcome: 'sent', statusCode, durationMs };
        if (statusCode === 429) {
          // The body's fractional seconds are more precise than the header's whole ones.
          const retryAfterMs =
            retryAfterSecondsMs(parseJsonObject(response.body)?.['retry_after']) ?? retryAfterHeaderMs(response.headers['retry-after']);
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

import { getJson, postJson } from '../../net/http-post.js';
import { httpError, isSuccess, networkFailure, parseJsonObject } from './http-result.js';
import { cutText } from '../../text/cut.js';
import { alertMessage, type AlertMessage, type Tone } from '../message/facts.js';
import { summarizeHealthNotice, TEST_LABEL } from './summary.js';
import { batchSummary, summaryBody } from '../message/summary.js';
import { firedOf, type ChannelSender, type DeliveryJob, type SendResult } from './types.js';
import { retryAfterHeaderMs, retryAfterSecondsMs } from '../../net/retry-after.js';

export interface DiscordEmbed {
  title: string;
  url: string;
  description: string;
  color: number;
  fields: { name: string; value: string; inline?: boolean }[];
  timestamp?: string;
  footer: { text: string };
}

const COLORS: Record<Tone, number> = { up: 0x57f287, down: 0xed4245, opened: 0x57f287, closed: 0xed4245, neutral: 0x5865f2 };
const NOTICE_COLOR = 0xed4245;

/**
 * Venue and user text as Discord markdown shows it literally: the markdown characters get a
 * backslash, and so do a line's leading `>` (a quote), `#` (a header) and `-` (a list).
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\_*~`|[\]()]/g, '\\$&').replace(/^([>#-])/gm, '\\$1');
}

/** Escaped and within `max` characters, never ending inside an escape. */
function fit(text: string, max: number): string {
  let length = text.length;
  let out = escapeMarkdown(text);
  while (out.length > max) {
    length = Math.min(length - 1, Math.floor((length * max) / out.length));
    out = escapeMarkdown(cutText(text, length));
  }
  return out;
}

// Discord's embed limits: title 256, description 4096, field value 1024 characters.
export function renderDiscordEmbed(m: AlertMessage): DiscordEmbed {
  const fields: DiscordEmbed['fields'] = [];
  const add = (name: string, value: string | undefined, inline = true) => {
    if (value) fields.push({ name, value: fit(value, 1024), inline });
  };
  add('Outcomes', m.outcomes, false);
  add('Event', m.eventTitle, false);
  add('Watchlist', m.watchlistName);
  add('Time', m.time);
  if (m.links.chartUrl) fields.push({ name: 'Chart', value: `[24 h price chart](${m.links.chartUrl})`, inline: true });
  const lines = m.rules.map((rule) => `**${escapeMarkdown(rule.headline)}**`);
  const moved = [m.outcome, m.move].filter(Boolean).join(' ');
  if (moved) lines.push(escapeMarkdown(moved));
  if (m.test) lines.unshift(`**${escapeMarkdown(TEST_LABEL)}**`);
  return {
    title: fit(m.subject, 256),
    url: m.links.venueUrl,
    description: lines.join('\n'),
    color: COLORS[m.tone],
    fields,
    ...(m.timestamp ? { timestamp: m.timestamp } : {}),
    footer: { text: 'Oddswatch' },
  };
}

/** A notification (and those grouped with it) as a Discord embed. */
export function formatDiscordEmbed(
  payload: Record<string, unknown>,
  links: DeliveryJob['links'],
  test = false,
  more: Pick<DeliveryJob, 'rule' | 'outcomeName' | 'alsoFired'> = {},
): DiscordEmbed {
  return renderDiscordEmbed(alertMessage({ fired: firedOf(payload, more), links, outcomeName: more.outcomeName, test }));
}

/** A batched send (quiet hours, a digest, a burst) as one embed; Discord's description holds 4,096 characters. */
export function formatDiscordSummary(batch: NonNullable<DeliveryJob['batch']>) {
  const summary = batchSummary(batch.kind, batch.items);
  return {
    title: fit(summary.title, 256),
    description: summaryBody(summary, 4000, { heading: (t) => `\n**${escapeMarkdown(t)}**`, line: (t) => `• ${escapeMarkdown(t)}` }),
    color: COLORS.neutral,
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
 * The buttons under an alert: links to the venue page and the chart for every webhook; a row of
 * Pause and Delete per rule they still apply to, only when `interactive` (a webhook our application
 * owns, so the clicks reach our bot). Their custom_id is the command-layer action the bot runs.
 */
export function renderDiscordComponents(m: AlertMessage, interactive: boolean): DiscordActionRow[] {
  const linkRow: DiscordButton[] = [{ type: 2, style: LINK, label: 'Open market', url: m.links.venueUrl }];
  if (m.links.chartUrl) linkRow.push({ type: 2, style: LINK, label: 'Chart', url: m.links.chartUrl });
  const rows: DiscordActionRow[] = [{ type: 1, components: linkRow }];
  if (!interactive) return rows;
  for (const rule of m.rules) {
    if (rule.buttons.length === 0) continue;
    rows.push({
      type: 1,
      components: rule.buttons.map((b) => ({ type: 2, style: b.danger ? DANGER : SECONDARY, label: b.label, custom_id: b.action })),
    });
  }
  return rows;
}

/** `…/webhooks/{id}/{token}`, with or without /api/v10. */
const WEBHOOK_PATH = /\/webhooks\/\d+\/[^/]+\/?$/;
const MAX_CACHED_WEBHOOKS = 10_000;
const DISCORD_API = 'https://discord.com/api';
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
  /** DISCORD_TOKEN: alerts made in a direct message are posted there by the bot itself. */
  botToken?: string;
  /** DISCORD_API_URL: Discord's REST base, without /v10. */
  apiUrl?: string;
}

export function createDiscordSender({
  allowPrivate,
  timeoutMs = 5000,
  applicationId,
  now = Date.now,
  botToken,
  apiUrl = DISCORD_API,
}: DiscordSenderOptions): ChannelSender {
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

  /**
   * The message for one job: the alert embed (or an endpoint-health notice) and its buttons. Pause,
   * Delete and Re-enable only when `interactive`: the message is one our application posts.
   */
  function messageOf(job: DeliveryJob, interactive: boolean) {
    // A summary of several alerts has no one rule to pause: no buttons.
    if (job.batch) return { embeds: [formatDiscordSummary(job.batch)], allowed_mentions: { parse: [] } };
    // An endpoint-health notice is about the account's channel, not a market: no rule buttons.
    const notice = summarizeHealthNotice(job.payload);
    if (notice) {
      return {
        embeds: [{ title: notice.title, description: cutText(notice.message, 4096), color: NOTICE_COLOR, footer: { text: 'Oddswatch' } }],
        ...(notice.reEnableAction && interactive
          ? { components: [{ type: 1, components: [{ type: 2, style: SUCCESS, label: 'Re-enable', custom_id: notice.reEnableAction }] }] }
          : {}),
        allowed_mentions: { parse: [] },
      };
    }
    const alert = alertMessage({ fired: firedOf(job.payload, job), links: job.links, outcomeName: job.outcomeName, test: job.test });
    return {
      embeds: [renderDiscordEmbed(alert)],
      // A test has no rule behind it to pause or delete.
      components: renderDiscordComponents(alert, interactive && !job.test),
      allowed_mentions: { parse: [] }, // market text must never ping @everyone
    };
  }

  async function toWebhook(job: DeliveryJob, url: string): Promise<SendResult> {
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
    // Only the interactive buttons depend on the lookup: skip it when there are none to show.
    const notice = summarizeHealthNotice(job.payload);
    const wantsButtons = notice ? Boolean(notice.reEnableAction) : !job.test && !job.batch;
    const body = { username: 'Oddswatch', ...messageOf(job, wantsButtons && (await ownedByUs(webhook))) };
    return post(target, body, { allowPrivate }, (status) => {
      if (status !== 401 && status !== 404) return undefined;
      const error = `Discord webhook was deleted or its token is invalid (HTTP ${status})`;
      return { error, reason: `The ${error}` };
    });
  }

  /** A DM: the bot's own message in its DM channel with the user, so its buttons always reach us. */
  async function toDirectMessage(job: DeliveryJob, channelId: string): Promise<SendResult> {
    if (!botToken) return { outcome: 'failed', error: 'DISCORD_TOKEN is not set for the worker: it cannot post in Discord direct messages', durationMs: 0 };
    const target = new URL(`${apiUrl.replace(/\/+$/, '')}/v10/channels/${encodeURIComponent(channelId)}/messages`);
    // The API base is the operator's setting, not a user's URL: the SSRF guard is not for it.
    return post(target, messageOf(job, true), { allowPrivate: true, headers: { authorization: `Bot ${botToken}` } }, (status) => {
      // A 401 is the worker's token, not this channel: it counts toward the span like any failure.
      const error =
        status === 403
          ? 'Discord refused the direct message: the user blocked the bot or takes no direct messages (HTTP 403)'
          : status === 404
            ? 'The Discord direct message channel no longer exists (HTTP 404)'
            : undefined;
      return error ? { error, reason: error } : undefined;
    });
  }

  /**
   * POSTs a message and reads Discord's answer. `gone` names the statuses after which this
   * endpoint will not work again by itself (the error, and the reason the channel is disabled for).
   */
  async function post(
    target: URL,
    body: unknown,
    options: { allowPrivate: boolean; headers?: Record<string, string> },
    gone: (status: number) => { error: string; reason: string } | undefined,
  ): Promise<SendResult> {
    try {
      const response = await postJson(target, body, { ...options, timeoutMs });
      const { statusCode, durationMs } = response;
      if (isSuccess(statusCode)) return { outcome: 'sent', statusCode, durationMs };
      if (statusCode === 429) {
        // The body's fractional seconds are more precise than the header's whole ones.
        const retryAfterMs =
          retryAfterSecondsMs(parseJsonObject(response.body)?.['retry_after']) ?? retryAfterHeaderMs(response.headers['retry-after']);
        return { outcome: 'retry', statusCode, durationMs, retryAfterMs, error: 'Discord rate limit (HTTP 429)' };
      }
      const lost = gone(statusCode);
      if (lost) return { outcome: 'failed', statusCode, durationMs, error: lost.error, endpointGone: lost.reason };
      return { outcome: statusCode >= 500 ? 'retry' : 'failed', statusCode, durationMs, error: httpError(response) };
    } catch (err) {
      return networkFailure(err);
    }
  }

  return {
    async send(job: DeliveryJob): Promise<SendResult> {
      const { discordWebhookUrl, discordChannelId } = job.settings;
      if (discordChannelId) return toDirectMessage(job, discordChannelId);
      if (!discordWebhookUrl) return { outcome: 'failed', error: 'The Discord channel has no discordWebhookUrl', durationMs: 0 };
      return toWebhook(job, discordWebhookUrl);
    },
  };
}

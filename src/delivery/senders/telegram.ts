import { postJson } from '../../net/http-post.js';
import { retryAfterSecondsMs } from '../../net/retry-after.js';
import { isSuccess, networkFailure, parseJsonObject } from './http-result.js';
import { cutText } from '../../text/cut.js';
import { alertMessage, subjectLine, type AlertMessage } from '../message/facts.js';
import { summarizeHealthNotice, TEST_LABEL } from './summary.js';
import { batchSummary, summaryBody } from '../message/summary.js';
import { firedOf, type ChannelSender, type DeliveryJob, type SendResult } from './types.js';

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Telegram refuses a message over 4,096 characters after entity parsing: the texts that come from
 * the venue or the user (titles, outcomes, names) are cut to this each, which keeps the whole
 * message under the limit with room for the labels.
 */
const FREE_TEXT_MAX = 900;
const NOTICE_MAX = 3000;
const html = (text: string): string => escapeHtml(cutText(text, FREE_TEXT_MAX));

export interface TelegramMessage {
  text: string;
  reply_markup: { inline_keyboard: ({ text: string; url: string } | { text: string; callback_data: string })[][] };
}

/** The alert's facts as Telegram HTML: every venue or user text escaped, the layout in tags. */
export function renderTelegramAlert(m: AlertMessage): TelegramMessage {
  const lines: string[] = [];
  if (m.test) lines.push(`<b>${escapeHtml(TEST_LABEL)}</b>`);
  const [only] = m.rules;
  if (m.rules.length === 1 && only) {
    lines.push(`<b>${escapeHtml(only.headline)}</b>: ${escapeHtml(subjectLine(m))}`);
  } else {
    lines.push(`<b>${escapeHtml(subjectLine(m))}</b>`);
    for (const rule of m.rules) lines.push(`• ${escapeHtml(rule.headline)}`);
  }
  const line = (label: string, value: string | undefined) => {
    if (value) lines.push(`${label}: <b>${escapeHtml(value)}</b>`);
  };
  line('Outcomes', m.outcomes);
  line('Event', m.eventTitle);
  line('Watchlist', m.watchlistName);
  if (m.time) lines.push(`🕒 ${escapeHtml(m.time)}`);
  const links = [{ text: 'Open market', url: m.links.venueUrl }];
  if (m.links.chartUrl) links.push({ text: 'Chart', url: m.links.chartUrl });
  // The bot answers these callbacks with the same commands as typed ones.
  const ruleRows = m.rules
    .filter((rule) => rule.buttons.length > 0)
    .map((rule) => rule.buttons.map((b) => ({ text: b.label, callback_data: b.action })));
  return { text: lines.join('\n'), reply_markup: { inline_keyboard: [links, ...ruleRows] } };
}

/**
 * A notification as Telegram shows it: a health notice, or an alert (with the other rules that
 * fired on the same move, when the worker grouped them).
 */
export function formatTelegramMessage(
  payload: Record<string, unknown>,
  links: DeliveryJob['links'],
  test = false,
  more: Pick<DeliveryJob, 'rule' | 'outcomeName' | 'alsoFired'> = {},
): TelegramMessage {
  const notice = summarizeHealthNotice(payload);
  if (notice) {
    // The bot answers the tap with the same enable command as a typed `/enable`.
    const keyboard = notice.reEnableAction ? [[{ text: 'Re-enable', callback_data: notice.reEnableAction }]] : [];
    return { text: `<b>${html(notice.title)}</b>\n${escapeHtml(cutText(notice.message, NOTICE_MAX))}`, reply_markup: { inline_keyboard: keyboard } };
  }
  return renderTelegramAlert(alertMessage({ fired: firedOf(payload, more), links, outcomeName: more.outcomeName, test }));
}

/** Telegram's limit is 4,096 characters after entity parsing; the tags are not counted. */
const SUMMARY_MAX = 3900;

/** A batched send (quiet hours, a digest, a burst) as one Telegram message. */
export function formatTelegramSummary(batch: NonNullable<DeliveryJob['batch']>): TelegramMessage {
  const summary = batchSummary(batch.kind, batch.items);
  const body = summaryBody(summary, SUMMARY_MAX, { heading: (t) => `\n<b>${escapeHtml(t)}</b>`, line: (t) => `• ${escapeHtml(t)}` });
  return { text: `<b>${escapeHtml(summary.title)}</b>\n${body}`, reply_markup: { inline_keyboard: [] } };
}

export interface TelegramSenderOptions {
  botToken?: string;
  apiRoot?: string;
  timeoutMs?: number;
}

interface BotApiAnswer {
  ok?: boolean;
  description?: string;
  parameters?: { retry_after?: number };
}

/**
 * The request URL holds the bot token, and a Bot API answer may echo it: every error text passes
 * through here before it can reach an attempt record or a log.
 */
export function redactToken(text: string, botToken: string | undefined): string {
  const scrubbed = botToken ? text.split(botToken).join('[redacted]') : text;
  return scrubbed.replace(/\d{5,}:[A-Za-z0-9_-]{30,}/g, '[redacted]');
}

export function createTelegramSender({ botToken, apiRoot = 'https://api.telegram.org', timeoutMs = 5000 }: TelegramSenderOptions): ChannelSender {
  const endpoint = `${apiRoot.replace(/\/+$/, '')}/bot${botToken}/sendMessage`;
  return {
    async send(job: DeliveryJob): Promise<SendResult> {
      if (!botToken) return { outcome: 'failed', error: 'Telegram bot is not configured', durationMs: 0 };
      const chatId = job.settings.telegramChatId;
      if (chatId === undefined) {
        return { outcome: 'failed', error: 'The Telegram channel has no telegramChatId', durationMs: 0 };
      }
      const message = job.batch ? formatTelegramSummary(job.batch) : formatTelegramMessage(job.payload, job.links, job.test, job);
      const body = { chat_id: chatId, parse_mode: 'HTML', link_preview_options: { is_disabled: true }, ...message };
      try {
        // The API root is operator configuration, not user input: a local Bot API server is allowed.
        const response = await postJson(endpoint, body, { allowPrivate: true, timeoutMs });
        const { statusCode, durationMs } = response;
        const answer = (parseJsonObject(response.body) ?? {}) as BotApiAnswer;
        const error = redactToken(`Telegram HTTP ${statusCode}: ${answer.description ?? 'no description'}`, botToken);
        if (isSuccess(statusCode) && answer.ok === true) return { outcome: 'sent', statusCode, durationMs };
        if (statusCode === 403) return { outcome: 'blocked', statusCode, durationMs, error };
        if (statusCode === 429) {
          const retryAfterMs = retryAfterSecondsMs(answer.parameters?.retry_after);
          return { outcome: 'retry', statusCode, durationMs, retryAfterMs, error };
        }
        if (statusCode === 401 || statusCode === 404) {
          return { outcome: 'failed', statusCode, durationMs, error: `Telegram rejected the bot token (HTTP ${statusCode})` };
        }
        const transient = statusCode >= 500 || isSuccess(statusCode);
        return { outcome: transient ? 'retry' : 'failed', statusCode, durationMs, error };
      } catch (err) {
        const result = networkFailure(err);
        return { ...result, error: redactToken(result.error ?? '', botToken) };
      }
    },
  };
}

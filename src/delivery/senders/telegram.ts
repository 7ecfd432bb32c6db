import { postJson } from '../../net/http-post.js';
import { retryAfterSecondsMs } from '../../net/retry-after.js';
import { isSuccess, networkFailure, parseJsonObject } from './http-result.js';
import { summarizeHealthNotice, summarizeNotification, TEST_LABEL } from './summary.js';
import type { ChannelSender, DeliveryJob, SendResult } from './types.js';

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export interface TelegramMessage {
  text: string;
  reply_markup: { inline_keyboard: ({ text: string; url: string } | { text: string; callback_data: string })[][] };
}

export function formatTelegramMessage(payload: Record<string, unknown>, links: DeliveryJob['links'], test = false): TelegramMessage {
  const notice = summarizeHealthNotice(payload);
  if (notice) {
    // The bot answers the tap with the same enable command as a typed `/enable`.
    const keyboard = notice.reEnableAction ? [[{ text: 'Re-enable', callback_data: notice.reEnableAction }]] : [];
    return { text: `<b>${escapeHtml(notice.title)}</b>\n${escapeHtml(notice.message)}`, reply_markup: { inline_keyboard: keyboard } };
  }
  const s = summarizeNotification(payload);
  const lines = [`<b>${escapeHtml(s.headline)}</b>`, escapeHtml(s.title)];
  if (test) lines.unshift(`<b>${escapeHtml(TEST_LABEL)}</b>`);
  const line = (label: string, value: string | undefined) => {
    if (value) lines.push(`${label}: <b>${escapeHtml(value)}</b>`);
  };
  line('Price', s.price);
  line('Threshold', s.threshold);
  line('Outcomes', s.outcomes);
  if (s.title !== s.eventTitle) line('Event', s.eventTitle);
  line('Watchlist', s.watchlistName);
  const buttons = [{ text: 'Open market', url: links.venueUrl }];
  if (links.chartUrl) buttons.push({ text: 'Chart', url: links.chartUrl });
  const rows: TelegramMessage['reply_markup']['inline_keyboard'] = [buttons];
  // The bot answers these callbacks with the same pause and delete commands as typed ones.
  const subscriptionId = payload.subscriptionId;
  if (typeof subscriptionId === 'string' && !test) {
    rows.push([
      { text: 'Pause alert', callback_data: `pause:${subscriptionId}` },
      { text: 'Delete alert', callback_data: `delete:${subscriptionId}` },
    ]);
  }
  return { text: lines.join('\n'), reply_markup: { inline_keyboard: rows } };
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
      const message = formatTelegramMessage(job.payload, job.links, job.test);
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

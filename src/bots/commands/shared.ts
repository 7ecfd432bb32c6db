import { DEFAULT_TRIGGER_INTERVAL } from '../../domain/enums.js';
import type { ChatChannel, SubscriptionView } from '../../services/subscriptions/index.js';
import { encodeButton } from '../../domain/button-actions.js';
import { ruleLabel } from './alert-lines.js';
import type { BotButton, ChatInfo } from './types.js';

/** `a, b or c`: a list as a sentence says it. */
export function listWords(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

export function describeSubscription(s: SubscriptionView): string {
  const what = s.marketQuestion ?? s.eventTitle ?? s.watchlistName;
  const rule = ruleLabel(s);
  const when = s.triggerType === 'One Time' ? 'once' : `every ${s.triggerInterval ?? DEFAULT_TRIGGER_INTERVAL}`;
  const status = s.status.enabled ? 'active' : `paused (${s.status.reason})`;
  return `• ${s.subscriptionId}: ${rule} on "${what}", ${when} — ${status}`;
}

/** This chat as an alert's channel: the transport's own (Discord webhook or DM), a Telegram chat, or the in-app inbox. */
export function chatChannel(chat: ChatInfo): ChatChannel {
  if (chat.channel) return chat.channel;
  if (chat.kind === 'telegram') return { type: 'Telegram', settings: { telegramChatId: Number(chat.chatId) } };
  return { type: 'In App' };
}

/**
 * The buttons under an answer about one alert: the first toggles it (Pause or Resume), the second
 * deletes it. None when the alert's id would not fit a button.
 */
export function alertButtons(subscriptionId: string, toggle: 'Pause' | 'Resume', ...more: 'Delete'[]): BotButton[][] {
  const row: { label: string; action: string | undefined }[] = [
    { label: toggle, action: encodeButton(toggle === 'Pause' ? 'pause' : 'resume', subscriptionId) },
    ...more.map((label) => ({ label, action: encodeButton('delete', subscriptionId) })),
  ];
  return row.every((b): b is BotButton => b.action !== undefined) ? [row] : [];
}

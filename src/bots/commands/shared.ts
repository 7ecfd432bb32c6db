import type { WatchlistView } from '../../services/watchlists/index.js';
import type { Channel, SubscriptionView } from '../../services/subscriptions/index.js';
import type { ChatInfo } from './types.js';

/** `a, b or c`: a list as a sentence says it. */
export function listWords(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

export function describeWatchlist(w: WatchlistView): string {
  const n = Object.keys(w.events).length;
  return `• ${w.name} — ${n} event${n === 1 ? '' : 's'} (id ${w.id})`;
}

export function describeSubscription(s: SubscriptionView): string {
  const params = 'params' in s.rule ? s.rule.params : undefined;
  const what = s.marketQuestion ?? s.eventTitle ?? s.watchlistName;
  const rule = params ? `${s.rule.type} ${params.thresholdPercent}%` : s.rule.type;
  const when = s.triggerType === 'One Time' ? 'once' : `every ${s.triggerInterval ?? '30m'}`;
  const status = s.status.enabled ? 'active' : `paused (${s.status.reason})`;
  return `• ${s.subscriptionId}: ${rule} on "${what}", ${when} — ${status}`;
}

/** This chat as an alert's channel: the transport's own (Discord webhook), a Telegram chat, or the in-app inbox. */
export function chatChannel(chat: ChatInfo): Channel {
  if (chat.channel) return chat.channel;
  if (chat.kind === 'telegram') return { type: 'Telegram', settings: { telegramChatId: Number(chat.chatId) } };
  return { type: 'In App' };
}

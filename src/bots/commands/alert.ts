import type { PriceRuleType, TriggerInterval } from '../../domain/enums.js';
import { findMarket } from '../../services/search/index.js';
import { createSubscription, type Channel } from '../../services/subscriptions/index.js';
import { listWatchlists, putWatchlistEvent } from '../../services/watchlists/index.js';
import { describeSubscription, targetWatchlist } from './shared.js';
import { UsageError, type ChatInfo, type Command } from './types.js';

export const ALERT_TYPES: Record<string, PriceRuleType> = {
  up: 'Crossing Up',
  down: 'Crossing Down',
  cross: 'Crossing',
  step: 'Crossing Step',
  above: 'Greater Than',
  below: 'Less Than',
};
const INTERVALS: readonly TriggerInterval[] = ['5m', '30m', '60m', '6h', '12h', '24h'];

/** This chat as the alert's channel: the transport's own (Discord webhook), a Telegram chat, or the in-app inbox. */
function chatChannel(chat: ChatInfo): Channel {
  if (chat.channel) return chat.channel;
  if (chat.kind === 'telegram') return { type: 'Telegram', settings: { telegramChatId: Number(chat.chatId) } };
  return { type: 'In App' };
}

function parseTrigger(words: string[]): { triggerType: 'One Time' | 'Recurring'; triggerInterval?: TriggerInterval } {
  if (words.length === 0) return { triggerType: 'Recurring' };
  if (words.length === 1 && words[0] === 'once') return { triggerType: 'One Time' };
  const interval = words[1] as TriggerInterval;
  if (words.length === 2 && words[0] === 'every' && INTERVALS.includes(interval)) {
    return { triggerType: 'Recurring', triggerInterval: interval };
  }
  throw new UsageError(`End with "once" or "every ${INTERVALS.join('|')}".`);
}

export const alertCommand: Command = {
  name: 'alert',
  usage: `alert <market id> <${Object.keys(ALERT_TYPES).join('|')}> <percent> [once | every ${INTERVALS.join('|')}]`,
  summary: 'Alert this chat when a market price moves',
  async run({ ctx, chat, args }) {
    const [marketId, typeWord, percentWord, ...rest] = args;
    const type = typeWord ? ALERT_TYPES[typeWord.toLowerCase()] : undefined;
    const percent = Number(percentWord?.replace(/%$/, ''));
    if (!marketId || !type || !percentWord || !Number.isFinite(percent)) throw new UsageError();
    const trigger = parseTrigger(rest.map((w) => w.toLowerCase()));
    const market = await findMarket({ ctx, input: { marketId } });
    // The alert lives in a watchlist holding the market's event; add the event to the default one if none does.
    let watchlist = (await listWatchlists({ ctx, input: {} })).find((w) => market.eventId in w.events);
    if (!watchlist) {
      const target = await targetWatchlist(ctx);
      watchlist = await putWatchlistEvent({ ctx, input: { watchlistId: target.id, eventId: market.eventId, body: undefined } });
    }
    const created = await createSubscription({
      ctx,
      input: {
        watchlistId: watchlist.id,
        subscriptionScope: 'Market',
        eventId: market.eventId,
        marketId: market.id,
        subscriptionTypeConfig: { type, config: { params: { threshold_percent: percent } } },
        ...trigger,
        channels: [chatChannel(chat)],
      },
    });
    return {
      text: `Alert created:\n${describeSubscription(created)}`,
      buttons: [[
        { label: 'Pause', action: `pause:${created.subscriptionId}` },
        { label: 'Delete', action: `delete:${created.subscriptionId}` },
      ]],
    };
  },
};

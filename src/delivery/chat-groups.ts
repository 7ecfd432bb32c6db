import { NOTIFICATION_TYPE } from '../domain/enums.js';
import { MAX_RULES_PER_MESSAGE } from './message/facts.js';
import type { ClaimedWithContext } from './outbox-store.js';

// One chat message per market and move: several rules of one account that fire on the same price
// move would otherwise send the chat one message each for the same news.

/** The chat, market and move a delivery tells of; undefined when it is sent alone. */
function groupKey(delivery: ClaimedWithContext): string | undefined {
  const { channelType, settings, context } = delivery;
  const { payload } = context;
  if (context.disabledReason || payload.type !== NOTIFICATION_TYPE.price) return undefined;
  const target =
    channelType === 'Telegram'
      ? settings?.telegramChatId
      : channelType === 'Discord'
        ? (settings?.discordWebhookUrl ?? settings?.discordChannelId)
        : undefined;
  const { userId, marketId, clobTokenId, detectedAtMs } = payload;
  if (target === undefined || typeof userId !== 'string' || typeof marketId !== 'string' || typeof detectedAtMs !== 'number') return undefined;
  return JSON.stringify([channelType, String(target), userId, marketId, clobTokenId, detectedAtMs]);
}

/**
 * Splits claimed deliveries into sends: the deliveries of one batch (quiet hours, a digest, a
 * burst: batches.ts) go together as one summary, however many; chat deliveries of one account to
 * one chat about the same market, token and detection go together (at most as many as one message
 * has button rows for); everything else alone. A delivery to a disabled channel is always alone
 * (it is recorded unsent). Order is kept: a group sits where its first delivery was.
 */
export function groupForChat<T extends ClaimedWithContext>(claimed: readonly T[]): Array<[T, ...T[]]> {
  const sends: Array<[T, ...T[]]> = [];
  const open = new Map<string, [T, ...T[]]>();
  for (const delivery of claimed) {
    if (delivery.batchKey && !delivery.context.disabledReason) {
      const key = `batch ${delivery.batchKey}`;
      const batch = open.get(key);
      if (batch) batch.push(delivery);
      else {
        const fresh: [T, ...T[]] = [delivery];
        sends.push(fresh);
        open.set(key, fresh);
      }
      continue;
    }
    const key = groupKey(delivery);
    const group = key === undefined ? undefined : open.get(key);
    // The same notification twice (two channels to one chat) is two messages, as configured.
    if (group && group.length < MAX_RULES_PER_MESSAGE && !group.some((d) => d.notificationId === delivery.notificationId)) {
      group.push(delivery);
      continue;
    }
    const fresh: [T, ...T[]] = [delivery];
    sends.push(fresh);
    if (key !== undefined) open.set(key, fresh);
  }
  return sends;
}

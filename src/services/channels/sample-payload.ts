import type { ChatChannel } from '../subscriptions/schemas.js';

/**
 * A `price_notification` in the spec's shape, with placeholder ids and wording that says it is a
 * sample: a receiver's parser sees the fields it will see for real, and a reader cannot mistake it
 * for a market move.
 */
export function samplePriceNotification(accountId: string, channel: ChatChannel, now: Date): Record<string, unknown> {
  const atMs = now.getTime();
  return {
    type: 'price_notification',
    userId: accountId,
    createdAt: now.toISOString(),
    subscriptionId: 'test',
    watchlistId: 'test',
    watchlistName: 'Test alert',
    eventId: 'test',
    eventTitle: 'Oddswatch test alert',
    marketId: 'test',
    marketQuestion: 'Will this test alert reach you?',
    polymarketSlug: '',
    clobTokenId: 'test',
    subscriptionScope: 'Market',
    subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 50 } } },
    triggerType: 'One Time',
    detectedValue: 0.5,
    detectedAt: now.toISOString(),
    detectedAtMs: atMs,
    sentFromPolymarketAtMs: atMs,
    channels: [{ type: channel.type, settings: channel.settings ?? {} }],
  };
}

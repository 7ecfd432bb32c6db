import { pricePayload } from '../../delivery/payloads.js';
import type { ChatChannel } from '../subscriptions/schemas.js';

const SAMPLE_ID = 'test';

/**
 * A `price_notification` built by the engine's own builder, with placeholder ids and wording that
 * says it is a sample: a receiver's parser sees the fields it will see for real, and a reader
 * cannot mistake it for a market move.
 */
export function samplePriceNotification(accountId: string, channel: ChatChannel, now: Date): Record<string, unknown> {
  const atMs = now.getTime();
  return pricePayload(
    {
      id: SAMPLE_ID,
      accountId,
      watchlistId: SAMPLE_ID,
      scope: 'Market',
      type: 'Crossing Up',
      thresholdPercent: 50,
      ruleParams: null,
      triggerType: 'One Time',
    },
    {
      market: { id: SAMPLE_ID, question: 'Will this test alert reach you?' },
      event: { id: SAMPLE_ID, title: 'Oddswatch test alert', slug: '' },
      watchlistName: 'Test alert',
    },
    [{ position: 0, type: channel.type, settings: channel.settings ?? null }],
    { ruleId: 0, subscriptionId: SAMPLE_ID, marketId: SAMPLE_ID, token: SAMPLE_ID, ruleType: 'Crossing Up', previousPrice: null, price: 0.5, atMs },
    { receivedAtMs: atMs },
  );
}

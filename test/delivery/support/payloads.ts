import type { DeliveryJob } from '../../../src/delivery/senders/types.js';

export const pricePayload = {
  type: 'price_notification',
  userId: 'user-1',
  createdAt: '2025-10-01T12:00:00.000Z',
  subscriptionId: 'sub-1',
  watchlistId: 'wl-1',
  watchlistName: 'Elections <2026>',
  eventId: 'ev-1',
  eventTitle: 'Who wins the election?',
  marketId: 'mk-1',
  marketQuestion: 'Will A & B win <the> "race"?',
  polymarketSlug: 'who-wins',
  clobTokenId: 'tok-1',
  subscriptionScope: 'Market',
  subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 50 } } },
  triggerType: 'Recurring',
  detectedValue: 0.535,
  detectedAt: '2025-10-01T12:00:00.000Z',
  detectedAtMs: 1759320000000,
  sentFromPolymarketAtMs: 1759319999900,
  channels: [{ type: 'Webhook' }],
  detectionDetails: { detectedValue: 0.535, detectedTimeMs: 1759320000000, priceChangeTimeMs: '1759319999900', previousValue: 0.47 },
};

/** The rule behind a payload as the worker reads it: a Recurring rule that is still on. */
export const activeRule = { enabled: true, triggerType: 'Recurring' };

export const marketClosedPayload = {
  type: 'event_status_notification',
  userId: 'user-1',
  eventStatusScope: 'Market',
  triggerType: 'Closed',
  createdAt: '2025-10-01T12:00:00.000Z',
  subscriptionId: 'sub-2',
  watchlistId: 'wl-1',
  watchlistName: 'Elections',
  eventId: 'ev-1',
  eventTitle: 'Who wins the election?',
  marketId: 'mk-1',
  marketQuestion: 'Will A win?',
  outcomes: '["Yes","No"]',
  outcomePrices: '["0.995","0.005"]',
  polymarketSlug: 'who-wins',
  detectedAt: '2025-10-01T12:00:00.000Z',
  detectedAtMs: 1759320000000,
  channels: [{ type: 'Discord' }],
};

export const links = { venueUrl: 'https://polymarket.com/event/who-wins', chartUrl: 'https://oddswatch.example/markets/mk-1/chart.svg' };

export function job(overrides: Partial<DeliveryJob> = {}): DeliveryJob {
  return { notificationId: 'ntf_01', attempt: 1, payload: pricePayload, settings: {}, links, rule: activeRule, outcomeName: 'Yes', ...overrides };
}

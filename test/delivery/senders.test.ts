import { describe, expect, it } from 'vitest';
import { createSenders } from '../../src/delivery/senders/index.js';
import { buildJob } from '../../src/delivery/worker.js';
import type { ClaimedDelivery } from '../../src/delivery/outbox-store.js';
import { CHANNEL_TYPES } from '../../src/domain/enums.js';
import { job } from './support/payloads.js';

describe('channel senders', () => {
  const senders = createSenders({ allowPrivateUrls: true });

  it('has one sender for every channel type', () => {
    expect(Object.keys(senders).sort()).toEqual([...CHANNEL_TYPES].sort());
  });

  it('an In App delivery is sent at once: the notification row is the inbox entry', async () => {
    expect(await senders['In App'].send(job())).toEqual({ outcome: 'sent', durationMs: 0 });
  });

  it('Telegram without a bot token fails with a clear message', async () => {
    const result = await senders.Telegram.send(job({ settings: { telegramChatId: 1 } }));
    expect(result).toMatchObject({ outcome: 'failed', error: 'Telegram bot is not configured' });
  });

  it('links chat alerts to the chart only at PUBLIC_URL: Telegram refuses a button to a local host', () => {
    const delivery: ClaimedDelivery = { id: 'd1', notificationId: 'n1', position: 0, channelType: 'Telegram', settings: { telegramChatId: 1 }, attempts: 0, lease: '' };
    const context = { payload: { marketId: 'mk 1', polymarketSlug: 'who-wins' }, webhookSecret: 'whsec_x', previousWebhookSecret: null, rotatedAtMs: null, rateLimitedBefore: 0 };
    expect(buildJob(delivery, context, 1, { PUBLIC_URL: undefined, WEBHOOK_SECRET_GRACE_MS: 0 }).links).toEqual({ venueUrl: 'https://polymarket.com/event/who-wins' });
    expect(buildJob(delivery, context, 1, { PUBLIC_URL: 'https://ow.example/', WEBHOOK_SECRET_GRACE_MS: 0 }).links).toEqual({
      venueUrl: 'https://polymarket.com/event/who-wins',
      chartUrl: 'https://ow.example/markets/mk%201/chart.svg',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { createSenders } from '../../src/delivery/senders/index.js';
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
});

import { describe, expect, it } from 'vitest';
import { CHANNEL_RETRY_RULES, nextAttempt, type DeliveryStatus } from '../../src/delivery/retry-policy.js';
import type { SendResult } from '../../src/delivery/senders/types.js';
import { createWebhookSender } from '../../src/delivery/senders/webhook.js';
import { job } from './support/payloads.js';
import { json, startReceiver } from './support/receiver.js';

const sent: SendResult = { outcome: 'sent', statusCode: 200, durationMs: 5 };
const transient: SendResult = { outcome: 'retry', statusCode: 500, durationMs: 5 };
const rateLimited = (retryAfterMs?: number): SendResult => ({ outcome: 'retry', statusCode: 429, durationMs: 5, retryAfterMs });

describe('retry policy', () => {
  it('a delivered attempt is SENT', () => {
    expect(nextAttempt({ attempt: 1, result: sent })).toEqual({ status: 'SENT' });
  });

  it('a permanent failure is FAILED at once', () => {
    expect(nextAttempt({ attempt: 1, result: { outcome: 'failed', durationMs: 1 } })).toEqual({ status: 'FAILED' });
  });

  it('a blocked recipient is BLOCKED_BY_USER at once', () => {
    expect(nextAttempt({ attempt: 1, result: { outcome: 'blocked', statusCode: 403, durationMs: 1 } })).toEqual({
      status: 'BLOCKED_BY_USER',
    });
  });

  it('a failed delivery is retried 2 times, 1 second apart: 3 attempts in all', () => {
    expect(nextAttempt({ attempt: 1, result: transient })).toEqual({ status: 'PENDING', retryAtDelayMs: 1000 });
    expect(nextAttempt({ attempt: 2, result: transient })).toEqual({ status: 'PENDING', retryAtDelayMs: 1000 });
    expect(nextAttempt({ attempt: 3, result: transient })).toEqual({ status: 'FAILED' });
  });

  it('takes the number of attempts and the delay from its options', () => {
    expect(nextAttempt({ attempt: 3, result: transient, maxAttempts: 5, retryDelayMs: 50 })).toEqual({
      status: 'PENDING',
      retryAtDelayMs: 50,
    });
    expect(nextAttempt({ attempt: 1, result: transient, maxAttempts: 1 })).toEqual({ status: 'FAILED' });
  });

  it('honours a Retry-After longer than the delay, capped at 60 s', () => {
    expect(nextAttempt({ attempt: 1, result: rateLimited(5000) }).retryAtDelayMs).toBe(5000);
    expect(nextAttempt({ attempt: 1, result: rateLimited(300_000) }).retryAtDelayMs).toBe(60_000);
    expect(nextAttempt({ attempt: 1, result: rateLimited(200) }).retryAtDelayMs).toBe(1000);
  });

  it('counts a webhook 429 as an attempt (the spec: 3 attempts whatever the answer)', () => {
    const rules = CHANNEL_RETRY_RULES.Webhook;
    expect(nextAttempt({ attempt: 3, result: rateLimited(1000), rateLimitedBefore: 2, ...rules })).toEqual({
      status: 'FAILED',
    });
  });

  it('does not count up to 5 Discord or Telegram 429s as used attempts', () => {
    const rules = CHANNEL_RETRY_RULES.Discord;
    // Attempts 1-5 rate limited, attempt 6 a 500: one counted attempt so far.
    expect(nextAttempt({ attempt: 6, result: transient, rateLimitedBefore: 5, ...rules }).status).toBe('PENDING');
    // Five 429s, then 500, 500: the third counted attempt fails.
    expect(nextAttempt({ attempt: 7, result: transient, rateLimitedBefore: 5, ...rules }).status).toBe('PENDING');
    expect(nextAttempt({ attempt: 8, result: transient, rateLimitedBefore: 5, ...rules }).status).toBe('FAILED');
    expect(nextAttempt({ attempt: 3, result: rateLimited(2000), rateLimitedBefore: 2, ...CHANNEL_RETRY_RULES.Telegram })).toEqual({
      status: 'PENDING',
      retryAtDelayMs: 2000,
    });
  });

  it('stops after the free 429s are used up, so a rate limit cannot retry for ever', () => {
    const rules = CHANNEL_RETRY_RULES.Telegram;
    let attempt = 1;
    let status = 'PENDING';
    for (; status === 'PENDING'; attempt++) {
      status = nextAttempt({ attempt, result: rateLimited(1000), rateLimitedBefore: attempt - 1, ...rules }).status;
    }
    expect(status).toBe('FAILED');
    expect(attempt - 1).toBe(8); // 5 free retries + 3 counted attempts
  });
});

describe('webhook sender with the retry policy', () => {
  async function deliver(answers: number[]) {
    let call = 0;
    const receiver = await startReceiver((_req, res) => json(res, answers[call++] ?? 200, {}));
    const sender = createWebhookSender({ allowPrivate: true, timeoutMs: 1000 });
    let status: DeliveryStatus = 'PENDING';
    let attempt = 0;
    while (status === 'PENDING') {
      attempt++;
      const result = await sender.send(job({ attempt, settings: { webhookUrl: receiver.url } }));
      status = nextAttempt({ attempt, result, retryDelayMs: 0 }).status;
    }
    await receiver.close();
    return { status, ids: receiver.requests.map((r) => r.headers['webhook-id']) };
  }

  it('a receiver failing twice then answering 200 is SENT on the third attempt, same webhook-id each time', async () => {
    expect(await deliver([500, 503, 200])).toEqual({ status: 'SENT', ids: ['ntf_01', 'ntf_01', 'ntf_01'] });
  });

  it('a receiver failing three times is FAILED after exactly 3 attempts', async () => {
    const { status, ids } = await deliver([500, 500, 500, 200]);
    expect(status).toBe('FAILED');
    expect(ids).toHaveLength(3);
  });
});

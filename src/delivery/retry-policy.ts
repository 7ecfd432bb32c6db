import type { ChannelType } from '../domain/enums.js';
import type { SendResult } from './senders/types.js';

export type DeliveryStatus = 'SENT' | 'FAILED' | 'BLOCKED_BY_USER' | 'PENDING';

export interface NextAttemptInput {
  /** 1-based number of the try that produced `result`, counting every try (429s included). */
  attempt: number;
  result: SendResult;
  /** Earlier tries of this delivery answered with HTTP 429 (not counting this one). */
  rateLimitedBefore?: number;
  maxAttempts?: number;
  retryDelayMs?: number;
  /** A Retry-After longer than this is cut to it. */
  maxRetryAfterMs?: number;
  /** How many 429 answers are retried without using up one of maxAttempts. */
  freeRateLimitedRetries?: number;
}

export interface NextAttempt {
  status: DeliveryStatus;
  retryAtDelayMs?: number;
}

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_RETRY_DELAY_MS = 1000;
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/**
 * Per channel: the spec fixes Webhook at 3 attempts whatever the answer, so a webhook 429 counts.
 * Discord and Telegram rate limits are the platform pacing us, not a failure of the destination:
 * up to 5 of them are retried after their retry_after without using an attempt.
 */
export const CHANNEL_RETRY_RULES = {
  'In App': { freeRateLimitedRetries: 0 },
  Webhook: { freeRateLimitedRetries: 0 },
  Discord: { freeRateLimitedRetries: 5 },
  Telegram: { freeRateLimitedRetries: 5 },
} satisfies Record<ChannelType, { freeRateLimitedRetries: number }>;

export function isRateLimited(result: SendResult): boolean {
  return result.outcome === 'retry' && result.statusCode === 429;
}

export function nextAttempt({
  attempt,
  result,
  rateLimitedBefore = 0,
  maxAttempts = DEFAULT_MAX_ATTEMPTS,
  retryDelayMs = DEFAULT_RETRY_DELAY_MS,
  maxRetryAfterMs = DEFAULT_MAX_RETRY_AFTER_MS,
  freeRateLimitedRetries = 0,
}: NextAttemptInput): NextAttempt {
  switch (result.outcome) {
    case 'sent':
      return { status: 'SENT' };
    case 'failed':
      return { status: 'FAILED' };
    case 'blocked':
      return { status: 'BLOCKED_BY_USER' };
    case 'retry': {
      const rateLimited = rateLimitedBefore + (isRateLimited(result) ? 1 : 0);
      const countedAttempts = attempt - Math.min(rateLimited, freeRateLimitedRetries);
      if (countedAttempts >= maxAttempts) return { status: 'FAILED' };
      const retryAfter = Math.min(result.retryAfterMs ?? 0, maxRetryAfterMs);
      return { status: 'PENDING', retryAtDelayMs: Math.max(retryDelayMs, retryAfter) };
    }
  }
}

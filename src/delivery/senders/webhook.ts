import { Webhook } from 'standardwebhooks';
import { postJson } from '../../net/http-post.js';
import { digestBody, webhookBody } from './webhook-body.js';
import { retryAfterHeaderMs } from '../../net/retry-after.js';
import { httpError, isSuccess, networkFailure } from './http-result.js';
import type { ChannelSender, DeliveryJob, SendResult } from './types.js';

export const WEBHOOK_USER_AGENT = 'Oddswatch-Webhook/1.0';

export interface WebhookSenderOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  now?: () => Date;
}

/**
 * Standard Webhooks headers; the id is the notification id so every attempt carries the same one.
 * With a previous secret (a rotation's grace window) the header carries both signatures, space
 * separated, the new one first: a receiver verifying with either secret accepts.
 */
export function signatureHeaders(
  notificationId: string,
  body: string,
  secret: string | undefined,
  at: Date,
  previousSecret?: string,
): Record<string, string> {
  const headers: Record<string, string> = {
    'webhook-id': notificationId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
  };
  const secrets = [secret, previousSecret].filter((s): s is string => Boolean(s));
  if (secrets.length > 0) headers['webhook-signature'] = secrets.map((s) => new Webhook(s).sign(notificationId, at, body)).join(' ');
  return headers;
}

/**
 * The spec counts any non-2xx answer as a failed delivery that is retried (3 attempts in all), so
 * every non-2xx is 'retry' and the retry policy caps the attempts; 429 carries its Retry-After.
 */
export function createWebhookSender({ allowPrivate, timeoutMs = 5000, now = () => new Date() }: WebhookSenderOptions): ChannelSender {
  return {
    async send(job: DeliveryJob): Promise<SendResult> {
      const url = job.settings.webhookUrl;
      if (!url) return { outcome: 'failed', error: 'The Webhook channel has no webhookUrl', durationMs: 0 };
      // The receiver's own view, made here because one stored payload serves every channel.
      const digest = job.batch ? digestBody(job.batch, url) : undefined;
      const body = JSON.stringify(digest ? digest.body : { ...webhookBody(job.payload, url), ...(job.test ? { test: true } : {}) });
      const webhookId = digest ? digest.id : job.notificationId;
      try {
        const response = await postJson(url, body, {
          allowPrivate,
          timeoutMs,
          headers: {
            'user-agent': WEBHOOK_USER_AGENT,
            'content-type': 'application/json',
            ...signatureHeaders(webhookId, body, job.signingSecret, now(), job.previousSigningSecret),
          },
        });
        const { statusCode, durationMs } = response;
        if (isSuccess(statusCode)) return { outcome: 'sent', statusCode, durationMs };
        return {
          outcome: 'retry',
          statusCode,
          durationMs,
          error: httpError(response),
          retryAfterMs: statusCode === 429 ? retryAfterHeaderMs(response.headers['retry-after']) : undefined,
        };
      } catch (err) {
        return networkFailure(err);
      }
    },
  };
}

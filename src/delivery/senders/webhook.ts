import { createHmac } from 'node:crypto';
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

/** Secrets seen lately, decoded: an account's secret signs every one of its deliveries. */
const keys = new Map<string, Buffer>();
const KEYS_KEPT = 1000;

function signingKey(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
    if (key.length === 0) throw new Error("Secret can't be empty.");
    if (keys.size >= KEYS_KEPT) keys.delete(keys.keys().next().value!);
    keys.set(secret, key);
  }
  return key;
}

/**
 * Standard Webhooks headers; the id is the notification id so every attempt carries the same one.
 * With a previous secret (a rotation's grace window) the header carries both signatures, space
 * separated, the new one first: a receiver verifying with either secret accepts. The HMAC is
 * node:crypto's (OpenSSL), not the standardwebhooks library's pure-JS SHA-256, which cost several
 * times more CPU per delivery; the tests check the result against that library's verifier.
 */
export function signatureHeaders(
  notificationId: string,
  body: string,
  secret: string | undefined,
  at: Date,
  previousSecret?: string,
): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const headers: Record<string, string> = { 'webhook-id': notificationId, 'webhook-timestamp': timestamp };
  const secrets = [secret, previousSecret].filter((s): s is string => Boolean(s));
  if (secrets.length > 0) {
    const signed = `${notificationId}.${timestamp}.${body}`;
    headers['webhook-signature'] = secrets.map((s) => `v1,${createHmac('sha256', signingKey(s)).update(signed).digest('base64')}`).join(' ');
  }
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

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookSender } from '../../src/delivery/senders/webhook.js';
import { job, pricePayload } from './support/payloads.js';
import { json, startReceiver, type Receiver } from './support/receiver.js';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const sender = createWebhookSender({ allowPrivate: true, timeoutMs: 2000 });
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** Standard Webhooks verification written from the scheme, not from the library. */
function independentlyVerify(headers: Record<string, string | string[] | undefined>, body: string): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = `${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`;
  const expected = Buffer.from(createHmac('sha256', key).update(signed).digest('base64'));
  return String(headers['webhook-signature'])
    .split(' ')
    .some((entry) => {
      const [version, signature] = entry.split(',');
      const given = Buffer.from(signature ?? '');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

describe('Webhook channel', () => {
  it('POSTs the payload as JSON with the Oddswatch user agent and Standard Webhooks headers', async () => {
    receiver = await startReceiver((_req, res) => json(res, 200, { ok: true }));
    const result = await sender.send(job({ settings: { webhookUrl: `${receiver.url}/hook?x=1` }, signingSecret: secret }));

    expect(result).toMatchObject({ outcome: 'sent', statusCode: 200 });
    const [req] = receiver.requests;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/hook?x=1');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.headers['user-agent']).toBe('Oddswatch-Webhook/1.0');
    expect(req?.headers['webhook-id']).toBe('ntf_01');
    expect(Math.abs(Number(req?.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    expect(JSON.parse(req?.body ?? '')).toEqual(pricePayload);
  });

  it('signs so that an independent HMAC-SHA256 check and the standardwebhooks verifier both accept', async () => {
    receiver = await startReceiver((_req, res) => json(res, 200, {}));
    await sender.send(job({ settings: { webhookUrl: receiver.url }, signingSecret: secret }));
    const req = receiver.requests[0]!;
    expect(String(req.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(independentlyVerify(req.headers, req.body)).toBe(true);
    expect(independentlyVerify(req.headers, `${req.body} `)).toBe(false);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    expect(new Webhook(secret).verify(req.body, headers)).toEqual(pricePayload);
  });

  it("shows each receiver the channel types only, with its own URL but no other channel's settings", async () => {
    receiver = await startReceiver((_req, res) => json(res, 200, {}));
    const own = `${receiver.url}/mine`;
    const other = `${receiver.url}/theirs`;
    const payload = {
      ...pricePayload,
      channels: [
        { type: 'In App' },
        { type: 'Discord', settings: { discordWebhookUrl: 'https://discord.com/api/webhooks/1/SECRET-TOKEN' } },
        { type: 'Telegram', settings: { telegramChatId: 424242 } },
        { type: 'Webhook', settings: { webhookUrl: own } },
        { type: 'Webhook', settings: { webhookUrl: other } },
      ],
    };
    await sender.send(job({ payload, settings: { webhookUrl: own }, signingSecret: secret }));
    await sender.send(job({ payload, settings: { webhookUrl: other }, signingSecret: secret }));

    const [mine, theirs] = receiver.requests;
    for (const req of [mine!, theirs!]) {
      expect(req.body).not.toContain('SECRET-TOKEN');
      expect(req.body).not.toContain('424242');
      expect(independentlyVerify(req.headers, req.body)).toBe(true);
    }
    const { channels: _all, ...rest } = payload;
    expect(JSON.parse(mine!.body)).toEqual({
      ...rest,
      channels: [{ type: 'In App' }, { type: 'Discord' }, { type: 'Telegram' }, { type: 'Webhook', settings: { webhookUrl: own } }, { type: 'Webhook' }],
    });
    expect(JSON.parse(theirs!.body).channels).toEqual([
      { type: 'In App' },
      { type: 'Discord' },
      { type: 'Telegram' },
      { type: 'Webhook' },
      { type: 'Webhook', settings: { webhookUrl: other } },
    ]);
  });

  it('keeps the same webhook-id on every attempt of one notification', async () => {
    receiver = await startReceiver((_req, res) => json(res, 500, {}));
    await sender.send(job({ attempt: 1, settings: { webhookUrl: receiver.url }, signingSecret: secret }));
    await sender.send(job({ attempt: 2, settings: { webhookUrl: receiver.url }, signingSecret: secret }));
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual(['ntf_01', 'ntf_01']);
  });

  it.each([201, 202, 204])('treats HTTP %i as delivered', async (status) => {
    receiver = await startReceiver((_req, res) => {
      res.writeHead(status);
      res.end();
    });
    const result = await sender.send(job({ settings: { webhookUrl: receiver.url } }));
    expect(result).toMatchObject({ outcome: 'sent', statusCode: status });
  });

  it.each([500, 503, 400, 404])('retries after HTTP %i (the spec retries every failed delivery)', async (status) => {
    receiver = await startReceiver((_req, res) => json(res, status, { error: 'nope' }));
    const result = await sender.send(job({ settings: { webhookUrl: receiver.url } }));
    expect(result).toMatchObject({ outcome: 'retry', statusCode: status });
    expect(result.error).toContain(`HTTP ${status}`);
  });

  it('retries after HTTP 429 and reports its Retry-After', async () => {
    receiver = await startReceiver((_req, res) => json(res, 429, {}, { 'retry-after': '7' }));
    const result = await sender.send(job({ settings: { webhookUrl: receiver.url } }));
    expect(result).toMatchObject({ outcome: 'retry', statusCode: 429, retryAfterMs: 7000 });
  });

  it('gives up on a receiver that never answers after the timeout, as a retry', async () => {
    receiver = await startReceiver(() => {});
    const quick = createWebhookSender({ allowPrivate: true, timeoutMs: 200 });
    const result = await quick.send(job({ settings: { webhookUrl: receiver.url } }));
    expect(result.outcome).toBe('retry');
    expect(result.error).toBe('timed out after 200 ms');
    expect(result.durationMs).toBeGreaterThanOrEqual(190);
    expect(result.durationMs).toBeLessThan(1500);
  });

  it('does not follow a 302 redirect', async () => {
    receiver = await startReceiver((req, res) => {
      if (req.url === '/elsewhere') return json(res, 200, {});
      res.writeHead(302, { location: '/elsewhere' });
      res.end();
    });
    const result = await sender.send(job({ settings: { webhookUrl: `${receiver.url}/start` } }));
    expect(result).toMatchObject({ outcome: 'retry', statusCode: 302 });
    expect(receiver.requests.map((r) => r.url)).toEqual(['/start']);
  });

  it('retries when the connection is refused', async () => {
    receiver = await startReceiver(() => {});
    const url = receiver.url;
    await receiver.close();
    receiver = undefined;
    const result = await sender.send(job({ settings: { webhookUrl: url } }));
    expect(result).toMatchObject({ outcome: 'retry', error: 'connection refused' });
  });

  it('fails at once when the URL points at a private address and private URLs are not allowed', async () => {
    receiver = await startReceiver((_req, res) => json(res, 200, {}));
    const strict = createWebhookSender({ allowPrivate: false });
    const result = await strict.send(job({ settings: { webhookUrl: receiver.url } }));
    expect(result.outcome).toBe('failed');
    expect(result.error).toContain('loopback');
    expect(receiver.requests).toHaveLength(0);
  });

  it('fails when the channel has no webhookUrl', async () => {
    expect(await sender.send(job())).toMatchObject({ outcome: 'failed' });
  });
});

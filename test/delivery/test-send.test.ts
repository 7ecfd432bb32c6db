import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { deliveries, deliveryAttempts, notifications } from '../../src/db/schema/index.js';
import { TestSendResult } from '../../src/http/response-schemas.js';
import { PriceNotification } from '../../src/http/webhook-payloads.js';
import { TEST_LABEL } from '../../src/delivery/senders/summary.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { startFakeBotApi, type FakeBotApi } from '../bots/fake-bot-api.js';
import { startFakeDiscordApi, type FakeDiscordApi } from '../bots/fake-discord-api.js';
import { json, startReceiver, type Receiver } from './support/receiver.js';

const BOT_TOKEN = '123456:test-send-bot-token-abcdefghijklmnopqrstuvwxyz';
const APP_ID = '777000111';

let env: TestEnv;
let a: TestAccount;
let telegram: FakeBotApi;
let discord: FakeDiscordApi;
const receivers: Receiver[] = [];

beforeAll(async () => {
  telegram = await startFakeBotApi(BOT_TOKEN);
  discord = await startFakeDiscordApi(APP_ID);
  env = await createTestEnv({
    WEBHOOK_TIMEOUT_MS: '300',
    TELEGRAM_BOT_TOKEN: BOT_TOKEN,
    TELEGRAM_API_URL: telegram.url,
    DISCORD_APPLICATION_ID: APP_ID,
  });
  a = await env.newAccount();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await telegram?.close();
  await discord?.close();
  await env?.close();
});

async function receiver(handler: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(handler);
  receivers.push(r);
  return r;
}

async function testSend(channel: unknown, on = env, account = a) {
  const res = await on.http.post('/channels/test').set(account.auth).send(channel as object);
  return res.status === 200 ? { status: 200, body: TestSendResult.parse(res.body) } : { status: res.status, body: res.body as { error: string } };
}

/** Every outbox row in the database: a test send must leave none. */
async function storedRows(on = env) {
  const [n] = await on.database.db.select({ n: count() }).from(notifications);
  const [d] = await on.database.db.select({ n: count() }).from(deliveries);
  const [t] = await on.database.db.select({ n: count() }).from(deliveryAttempts);
  return [n!.n, d!.n, t!.n];
}

describe(`POST /channels/test (${engineName})`, () => {
  it('sends a signed sample price_notification marked test:true to a webhook and reports 200, storing nothing', async () => {
    const hook = await receiver((_req, res) => json(res, 200, { received: true }));
    const { body: secret } = await env.http.get('/webhook-secret').set(a.auth).expect(200);
    const result = await testSend({ type: 'Webhook', settings: { webhookUrl: `${hook.url}/alerts` } });
    expect(result).toEqual({ status: 200, body: { ok: true, statusCode: 200, error: null, durationMs: expect.any(Number) } });
    expect(hook.requests).toHaveLength(1);
    const [req] = hook.requests;
    expect(req!.url).toBe('/alerts');
    const verified = new Webhook(secret.secret).verify(req!.body, req!.headers as Record<string, string>) as Record<string, unknown>;
    expect(verified).toMatchObject({
      test: true,
      type: 'price_notification',
      userId: a.userId,
      channels: [{ type: 'Webhook', settings: { webhookUrl: `${hook.url}/alerts` } }],
    });
    // Besides the test mark, the spec's price_notification exactly as a rule's firing sends it.
    const { test: _mark, ...sample } = verified;
    expect(PriceNotification.safeParse(sample).error).toBeUndefined();
    expect(req!.headers['user-agent']).toBe('Oddswatch-Webhook/1.0');
    expect(await storedRows()).toEqual([0, 0, 0]);
  });

  it('reports a receiver answering 500 as ok:false with its status, once, without retrying or storing', async () => {
    const hook = await receiver((_req, res) => json(res, 500, { error: 'boom' }));
    const result = await testSend({ type: 'Webhook', settings: { webhookUrl: hook.url } });
    expect(result).toEqual({ status: 200, body: { ok: false, statusCode: 500, error: expect.stringContaining('HTTP 500'), durationMs: expect.any(Number) } });
    expect(hook.requests).toHaveLength(1);
    expect(await storedRows()).toEqual([0, 0, 0]);
  });

  it('gives up after WEBHOOK_TIMEOUT_MS on a receiver that never answers', async () => {
    const hook = await receiver(() => {}); // never answers
    const started = Date.now();
    const result = await testSend({ type: 'Webhook', settings: { webhookUrl: hook.url } });
    expect(result.body).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(/time/i) });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('sends a Telegram test labelled Test through the Bot API, without Pause and Delete buttons', async () => {
    const result = await testSend({ type: 'Telegram', settings: { telegramChatId: 5150 } });
    expect(result).toEqual({ status: 200, body: { ok: true, statusCode: 200, error: null, durationMs: expect.any(Number) } });
    const [call] = telegram.callsTo('sendMessage');
    expect(call!.body.chat_id).toBe(5150);
    expect(call!.body.text.split('\n')[0]).toBe(`<b>${TEST_LABEL}</b>`);
    expect(JSON.stringify(call!.body.reply_markup)).not.toMatch(/pause:|delete:/);
    expect(await storedRows()).toEqual([0, 0, 0]);
  });

  it('sends a Discord test labelled Test to the webhook, and reports a deleted webhook', async () => {
    const made = await fetch(`${discord.url}/v10/channels/C1/webhooks`, { method: 'POST', body: JSON.stringify({ name: 'alerts' }), headers: { 'content-type': 'application/json' } });
    const hook = (await made.json()) as { url: string };
    const result = await testSend({ type: 'Discord', settings: { discordWebhookUrl: hook.url } });
    expect(result).toEqual({ status: 200, body: { ok: true, statusCode: 200, error: null, durationMs: expect.any(Number) } });
    const [post] = discord.callsTo('POST', /^\/api\/webhooks\//);
    expect(post!.body.embeds[0].description).toContain(`**${TEST_LABEL}**`);
    // Our application's webhook, yet no Pause and Delete: a test has no rule behind it.
    expect(JSON.stringify(post!.body.components)).not.toMatch(/pause:|delete:/);

    const gone = await testSend({ type: 'Discord', settings: { discordWebhookUrl: `${discord.url}/api/webhooks/1/nope` } });
    expect(gone.body).toMatchObject({ ok: false, statusCode: 404, error: expect.stringContaining('deleted') });
    expect(await storedRows()).toEqual([0, 0, 0]);
  });

  it('answers In App at once with ok:true: there is nothing to reach', async () => {
    expect(await testSend({ type: 'In App' })).toEqual({ status: 200, body: { ok: true, statusCode: null, error: null, durationMs: 0 } });
    expect(await storedRows()).toEqual([0, 0, 0]);
  });

  it('validates the channel like a subscription channel: 400 {error} saying what to fix', async () => {
    const cases: [unknown, RegExp][] = [
      [{ type: 'Email', settings: {} }, /channel type must be one of/],
      [{ type: 'Webhook', settings: { webhookUrl: 'ftp://example.com' } }, /webhookUrl must be an http or https URL/],
      [{ type: 'Webhook', settings: {} }, /webhookUrl/],
      [{ type: 'Telegram', settings: { telegramChatId: 0 } }, /telegramChatId must not be 0/],
      [{ type: 'Discord', settings: { discordWebhookUrl: 'https://discord.com/x', extra: 1 } }, /extra|unrecognized/i],
      [[{ type: 'In App' }], /./],
    ];
    for (const [body, message] of cases) {
      const res = await testSend(body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.body).toEqual({ error: expect.stringMatching(message) });
    }
    expect((await env.http.post('/channels/test').send({ type: 'In App' })).status).toBe(401);
  });
});

describe(`POST /channels/test without ALLOW_PRIVATE_URLS (${engineName})`, () => {
  let strict: TestEnv;
  beforeAll(async () => {
    strict = await createTestEnv({ ALLOW_PRIVATE_URLS: 'false' });
  });
  afterAll(() => strict?.close());

  it('refuses loopback and private URLs as the SSRF guard does, sending nothing', async () => {
    const hook = await receiver((_req, res) => json(res, 200, {}));
    const b = await strict.newAccount();
    for (const channel of [
      { type: 'Webhook', settings: { webhookUrl: `${hook.url}/x` } },
      { type: 'Webhook', settings: { webhookUrl: 'http://10.0.0.7/hook' } },
      { type: 'Discord', settings: { discordWebhookUrl: 'http://169.254.169.254/api/webhooks/1/t' } },
    ]) {
      const res = await testSend(channel, strict, b);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(/^settings\.(webhookUrl|discordWebhookUrl) must be a public http\(s\) URL/) });
    }
    expect(hook.requests).toHaveLength(0);
    expect(await storedRows(strict)).toEqual([0, 0, 0]);
  });
});

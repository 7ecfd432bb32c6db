import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createSenders } from '../../src/delivery/senders/index.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { json, startReceiver, type Receiver } from '../delivery/support/receiver.js';
import { startFakeBotApi, type FakeBotApi } from '../bots/fake-bot-api.js';
import { startFakeDiscordApi, type FakeDiscordApi } from '../bots/fake-discord-api.js';
import { createSubscription, fire, OUTBOX_SETTINGS, startWorker, waitFor } from './support.js';
import { testClock } from '../support/wait.js';

// Endpoint health with a 10-minute span (moved through on the worker's clock: real time spent by
// a slow machine stays far below it) and 3 notifications.
const SPAN_MS = 600_000;
const BOT_TOKEN = '123456:health-test-token';

let env: TestEnv;
let bot: FakeBotApi;
let discord: FakeDiscordApi;
const receivers: Receiver[] = [];
let worker: Awaited<ReturnType<typeof startWorker>>;
// The worker's clock: a test moves it past half the span or the whole span instead of waiting.
// A fresh one per test, so no test starts with the time another one moved on.
let clock = testClock();
beforeEach(() => {
  clock = testClock();
});

beforeAll(async () => {
  env = await createTestEnv(
    { ...OUTBOX_SETTINGS, ENDPOINT_DISABLE_AFTER_MS: String(SPAN_MS), ENDPOINT_DISABLE_MIN_NOTIFICATIONS: '3' },
  );
  bot = await startFakeBotApi(BOT_TOKEN);
  discord = await startFakeDiscordApi('app-1');
  worker = await startWorker(env.database, env.config, {
    senders: createSenders({ allowPrivateUrls: true, timeoutMs: 30_000, telegram: { botToken: BOT_TOKEN, apiRoot: bot.url } }),
    now: () => clock.now(),
  });
});
afterAll(async () => {
  await worker?.stop();
  await Promise.all([...receivers.map((r) => r.close()), bot?.close(), discord?.close()]);
  await env?.close();
});

/** A receiver whose answer the test switches: 500 until told otherwise. */
async function switchableReceiver() {
  const state = { status: 500 };
  const r = await startReceiver((_req, res) => json(res, state.status, state.status === 200 ? { ok: true } : { error: 'down' }));
  receivers.push(r);
  return { receiver: r, state };
}

async function delivery(notificationId: string, position: number) {
  const [row] = await env.database.rows<{ status: string; last_error: string | null }>(
    sql`select status, last_error from deliveries where notification_id = ${notificationId} and position = ${position}`,
  );
  return row!;
}

/** Fires once and waits until the channel at `position` has its final status. */
async function fireAndSettle(a: TestAccount, sub: Awaited<ReturnType<typeof createSubscription>>, position: number) {
  const { id } = await fire(env, a, sub);
  return { id, ...(await waitFor(async () => { const d = await delivery(id, position); return d.status !== 'PENDING' && d; })) };
}

async function health(a: TestAccount, subscriptionId: string) {
  const res = await env.http.get(`/subscription/${subscriptionId}/channels/health`).set(a.auth).expect(200);
  return res.body.channels as Array<{ position: number; state: string; failedNotifications: number; lastError: string | null; endpoint: string; disabledReason: string | null }>;
}

async function notices(a: TestAccount) {
  const res = await env.http.get('/notifications').set(a.auth).expect(200);
  return (res.body.notifications as Array<{ payload: Record<string, any> }>)
    .map((n) => n.payload)
    .filter((p) => p.type === 'endpoint_health_notification');
}

describe(`endpoint health (${engineName})`, () => {
  it('warns at half the span, disables a webhook failing for the whole span, skips it, and re-enabling resumes delivery', async () => {
    const a = await env.newAccount();
    const { receiver, state } = await switchableReceiver();
    const webhookUrl = `${receiver.url}/hooks/secret-path-token?key=secret-query`;
    const discordHook = discord.addForeignWebhook('chan-health');
    const sub = await createSubscription(env, a, [
      { type: 'In App' },
      { type: 'Webhook', settings: { webhookUrl } },
      { type: 'Discord', settings: { discordWebhookUrl: discordHook } },
    ]);

    // Time since the first failure (when its notification was written) is the worker's clock,
    // moved by hand: the two first failures come well within half the span, whatever the machine.
    const failNow = async () => {
      expect((await fireAndSettle(a, sub, 1)).status).toBe('FAILED');
      return (await health(a, sub.subscriptionId))[1]!;
    };
    expect(await failNow()).toMatchObject({ state: 'failing', failedNotifications: 1 });
    expect(await failNow()).toMatchObject({ state: 'failing', failedNotifications: 2 });
    // No warning before half the span.
    expect(await notices(a)).toEqual([]);
    // Half the span has passed: a warning, and the channel is still on.
    clock.advance(SPAN_MS / 2 + 200);
    expect(await failNow()).toMatchObject({ state: 'failing', failedNotifications: 3 });
    expect(await notices(a)).toEqual([expect.objectContaining({ event: 'endpoint_failing' })]);
    // The whole span, with at least 3 failed notifications: disabled.
    clock.advance(SPAN_MS / 2);
    expect(await failNow()).toMatchObject({ state: 'disabled', failedNotifications: 4 });

    const [disabled, warning, ...more] = await notices(a);
    expect(more).toEqual([]);
    expect(warning).toMatchObject({ event: 'endpoint_failing', subscriptionId: sub.subscriptionId });
    expect(disabled).toMatchObject({
      event: 'endpoint_disabled',
      subscriptionId: sub.subscriptionId,
      channel: { position: 1, type: 'Webhook', endpoint: `Webhook ${receiver.url} (channel 1)` },
      lastError: expect.stringContaining('HTTP 500'),
      reEnable: { method: 'POST', path: `/subscription/${sub.subscriptionId}/channels/1/enable` },
    });
    expect(disabled!.failedNotifications).toBe(4);
    // The URL's path and query may be its secret: never in a notice.
    expect(JSON.stringify([disabled, warning])).not.toMatch(/secret-path-token|secret-query/);
    // The rule's Discord channel gets both notices as plain embeds, without the rule's buttons.
    const hookPath = new URL(discordHook).pathname;
    const embeds = await waitFor(() => {
      const titles = discord.callsTo('POST', /^\/api\/webhooks\//).filter((c) => c.path === hookPath && !c.body.components);
      return titles.length === 2 && titles.map((c) => c.body.embeds[0]);
    });
    expect(embeds.map((e: { title: string }) => e.title)).toEqual(['Alert channel failing', 'Alert channel disabled']);
    expect(embeds[1].description).toBe(disabled!.message);

    // Disabled: the next firing is recorded FAILED with the reason, and no request is made.
    const requestsBefore = receiver.requests.length;
    const skipped = await fireAndSettle(a, sub, 1);
    expect(skipped.status).toBe('FAILED');
    expect(skipped.last_error).toMatch(/^Channel disabled: Every delivery failed for .* Re-enable it with POST \/subscription\/.+\/channels\/1\/enable$/);
    expect(receiver.requests.length).toBe(requestsBefore);
    const shown = await env.http.get(`/subscription/${sub.subscriptionId}`).set(a.auth).expect(200);
    expect(shown.body.subscription.channels[1].status).toBe('FAILED');

    // Re-enabled with the endpoint fixed: delivery resumes.
    state.status = 200;
    const enabled = await env.http.post(`/subscription/${sub.subscriptionId}/channels/1/enable`).set(a.auth).expect(200);
    expect(enabled.body.channel).toMatchObject({ position: 1, state: 'healthy', failedNotifications: 0, disabledReason: null });
    const resumed = await fireAndSettle(a, sub, 1);
    expect(resumed.status).toBe('SENT');
    expect(receiver.requests.length).toBe(requestsBefore + 1);
  });

  it('enable answers 404 for another account or a missing position, and 400 for a position that is not a whole number', async () => {
    const a = await env.newAccount();
    const other = await env.newAccount();
    const sub = await createSubscription(env, a, [{ type: 'In App' }]);
    const path = (p: string) => `/subscription/${sub.subscriptionId}/channels/${p}/enable`;
    expect((await env.http.post(path('0')).set(other.auth).expect(404)).body.error).toEqual(expect.any(String));
    expect((await env.http.get(`/subscription/${sub.subscriptionId}/channels/health`).set(other.auth)).status).toBe(404);
    expect((await env.http.post(path('5')).set(a.auth).expect(404)).body.error).toMatch(/no channel at position 5/);
    expect((await env.http.post(path('abc')).set(a.auth).expect(400)).body.error).toMatch(/position must be a whole number/);
    expect((await env.http.post(path('1.5')).set(a.auth).expect(400)).body.error).toMatch(/position/);
    await env.http.post(path('0')).set(a.auth).expect(200);
  });

  it('a success in between resets the count: failures on either side of it do not add up to a disable', async () => {
    const a = await env.newAccount();
    const { receiver, state } = await switchableReceiver();
    const sub = await createSubscription(env, a, [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: `${receiver.url}/hook` } }]);
    await fireAndSettle(a, sub, 1);
    await fireAndSettle(a, sub, 1);
    expect((await health(a, sub.subscriptionId))[1]).toMatchObject({ state: 'failing', failedNotifications: 2 });

    state.status = 200;
    expect((await fireAndSettle(a, sub, 1)).status).toBe('SENT');
    expect((await health(a, sub.subscriptionId))[1]).toMatchObject({ state: 'healthy', failedNotifications: 0, lastError: null });

    // Past the span since the first failure, with 4 failed notifications in all (3 would disable
    // without the reset): still on, as only 2 came after the success.
    state.status = 500;
    clock.advance(SPAN_MS);
    for (let i = 0; i < 2; i++) expect((await fireAndSettle(a, sub, 1)).status).toBe('FAILED');
    expect((await health(a, sub.subscriptionId))[1]).toMatchObject({ state: 'failing', failedNotifications: 2 });
  });

  it('a deleted Discord webhook (404) disables at once, and the notice reaches In App and the rule’s Telegram chat', async () => {
    const a = await env.newAccount();
    const sub = await createSubscription(env, a, [
      { type: 'In App' },
      { type: 'Discord', settings: { discordWebhookUrl: `${discord.url}/api/webhooks/77/deleted-token` } },
      { type: 'Telegram', settings: { telegramChatId: 5551 } },
    ]);
    const first = await fireAndSettle(a, sub, 1);
    expect(first.status).toBe('FAILED');
    expect((await health(a, sub.subscriptionId))[1]).toMatchObject({ state: 'disabled', disabledReason: expect.stringContaining('HTTP 404') });
    const [notice] = await notices(a);
    expect(notice).toMatchObject({ event: 'endpoint_disabled', channel: { position: 1, type: 'Discord', endpoint: 'Discord channel 1' } });
    expect(JSON.stringify(notice)).not.toContain('deleted-token');
    const chatNotice = await waitFor(() => bot.callsTo('sendMessage').find((c) => c.body.chat_id === 5551 && /Alert channel disabled/.test(c.body.text)));
    expect(chatNotice.body.text).toContain(`/subscription/${sub.subscriptionId}/channels/1/enable`);

    const discordPosts = () => discord.callsTo('POST', /^\/api\/webhooks\/77\//).length;
    const before = discordPosts();
    const second = await fireAndSettle(a, sub, 1);
    expect(second.status).toBe('FAILED');
    expect(second.last_error).toMatch(/^Channel disabled: The Discord webhook was deleted/);
    expect(discordPosts()).toBe(before);
  });

  it('a Telegram chat that blocked the bot (403) disables at once; later firings send nothing there', async () => {
    const a = await env.newAccount();
    bot.blockedChats.add(6661);
    const sub = await createSubscription(env, a, [{ type: 'In App' }, { type: 'Telegram', settings: { telegramChatId: 6661 } }]);
    expect((await fireAndSettle(a, sub, 1)).status).toBe('BLOCKED_BY_USER');
    expect((await health(a, sub.subscriptionId))[1]).toMatchObject({ state: 'disabled', disabledReason: expect.stringContaining('blocked') });
    expect((await notices(a))[0]).toMatchObject({ event: 'endpoint_disabled', channel: { type: 'Telegram', position: 1 } });
    const sends = () => bot.callsTo('sendMessage').filter((c) => c.body.chat_id === 6661).length;
    const before = sends();
    const later = await fireAndSettle(a, sub, 1);
    expect(later.status).toBe('FAILED');
    expect(later.last_error).toMatch(/^Channel disabled: The bot was blocked/);
    expect(sends()).toBe(before);

    // Unblocked, a redelivery is an explicit try: it is sent, and its success re-enables the channel.
    bot.blockedChats.delete(6661);
    await env.http.post(`/notifications/${later.id}/redeliver`).set(a.auth).expect(200);
    await waitFor(async () => (await delivery(later.id, 1)).status === 'SENT');
    expect(sends()).toBe(before + 1);
    expect((await health(a, sub.subscriptionId))[1]).toMatchObject({ state: 'healthy', disabledReason: null });
    expect((await fireAndSettle(a, sub, 1)).status).toBe('SENT');
  });

  it('documents both routes in /openapi.json', async () => {
    const doc = (await env.http.get('/openapi.json').expect(200)).body;
    const enable = doc.paths['/subscription/{subscriptionId}/channels/{position}/enable'].post;
    expect(enable.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['subscriptionId', 'position']));
    expect(Object.keys(enable.responses)).toEqual(expect.arrayContaining(['200', '400', '404']));
    expect(doc.paths['/subscription/{subscriptionId}/channels/health'].get).toBeDefined();
    expect(doc.components.schemas.ChannelHealth.properties.state.enum).toEqual(['healthy', 'failing', 'disabled']);
  });
});

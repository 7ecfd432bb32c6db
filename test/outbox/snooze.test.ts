import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineName } from '../support/db.js';
import type { TestAccount, TestEnv } from '../support/context.js';
import { expectNothingFor, waitFor } from '../support/wait.js';
import type { Receiver } from '../delivery/support/receiver.js';
import type { FakeBotApi } from '../bots/fake-bot-api.js';
import { createSubscription, fire, startChatOutbox } from './support.js';

const BOT_TOKEN = '123456:snooze-test-token';
const CHAT_ID = 4242;

let env: TestEnv;
let bot: FakeBotApi;
let receiver: Receiver;
let outbox: Awaited<ReturnType<typeof startChatOutbox>> | undefined;

beforeAll(async () => {
  outbox = await startChatOutbox(BOT_TOKEN);
  ({ env, bot, receiver } = outbox);
});
afterAll(() => outbox?.stop());

/** A rule with the inbox, a webhook and a Telegram chat; each call gets a webhook path of its own. */
async function ruleWithChannels(a: TestAccount) {
  const path = `/hook-${Math.random().toString(36).slice(2)}`;
  const sub = await createSubscription(env, a, [
    { type: 'In App' },
    { type: 'Webhook', settings: { webhookUrl: `${receiver.url}${path}` } },
    { type: 'Telegram', settings: { telegramChatId: CHAT_ID } },
  ]);
  const hooks = () => receiver.requests.filter((r) => r.url === path).map((r) => JSON.parse(r.body) as Record<string, unknown>);
  return { sub, hooks };
}

const prefsPath = (id: string) => `/subscription/${id}/preferences`;
const snoozePath = (id: string) => `/subscription/${id}/snooze`;

async function deliveries(a: TestAccount, notificationId: string) {
  const res = await env.http.get(`/notifications/${notificationId}/deliveries`).set(a.auth).expect(200);
  return res.body.deliveries as Array<{ channel: string; status: string; attempts: Array<{ error: string | null }> }>;
}

describe(`subscription preferences (${engineName})`, () => {
  it('answers the defaults, replaces the whole object on PUT, and validates like every other body', async () => {
    const a = await env.newAccount();
    const { sub } = await ruleWithChannels(a);
    const id = sub.subscriptionId;
    expect((await env.http.get(prefsPath(id)).set(a.auth).expect(200)).body).toEqual({ snoozedUntil: null, delivery: 'instant', rearmPoints: 0 });

    const until = new Date(Date.now() + 3_600_000).toISOString();
    const put = await env.http.put(prefsPath(id)).set(a.auth).send({ snoozedUntil: until, delivery: 'daily', rearmPoints: 2.5 }).expect(200);
    expect(put.body).toEqual({ snoozedUntil: until, delivery: 'daily', rearmPoints: 2.5 });
    expect((await env.http.get(prefsPath(id)).set(a.auth).expect(200)).body).toEqual(put.body);
    // A field left out takes its default: PUT replaces the object.
    expect((await env.http.put(prefsPath(id)).set(a.auth).send({ delivery: 'hourly' }).expect(200)).body).toEqual({
      snoozedUntil: null,
      delivery: 'hourly',
      rearmPoints: 0,
    });

    for (const [body, message] of [
      [{ delivery: 'weekly' }, /delivery must be one of: instant, hourly, daily/],
      [{ rearmPoints: -1 }, /rearmPoints must be at least 0/],
      [{ rearmPoints: 51 }, /rearmPoints must be at most 50/],
      [{ rearmPoints: '2' }, /rearmPoints must be a number/],
      [{ snoozedUntil: 'tomorrow' }, /ISO 8601/],
      [{ colour: 'red' }, /colour/],
      [[], /./],
    ] as const) {
      const res = await env.http.put(prefsPath(id)).set(a.auth).send(body as object).expect(400);
      expect(res.body.error).toMatch(message);
    }
  });

  it("answers 404 for another account's subscription, on every route, and changes nothing", async () => {
    const owner = await env.newAccount();
    const other = await env.newAccount();
    const { sub } = await ruleWithChannels(owner);
    const id = sub.subscriptionId;
    await env.http.get(prefsPath(id)).set(other.auth).expect(404, { error: 'Subscription not found' });
    await env.http.put(prefsPath(id)).set(other.auth).send({ delivery: 'daily' }).expect(404);
    await env.http.post(snoozePath(id)).set(other.auth).send({ for: '1h' }).expect(404);
    await env.http.delete(snoozePath(id)).set(other.auth).expect(404);
    await env.http.get(prefsPath('no-such-id')).set(owner.auth).expect(404);
    expect((await env.http.get(prefsPath(id)).set(owner.auth).expect(200)).body).toEqual({ snoozedUntil: null, delivery: 'instant', rearmPoints: 0 });
  });

  it('snoozes for a span or until a time, keeps the other preferences, and refuses bad snoozes', async () => {
    const a = await env.newAccount();
    const { sub } = await ruleWithChannels(a);
    const id = sub.subscriptionId;
    await env.http.put(prefsPath(id)).set(a.auth).send({ delivery: 'daily', rearmPoints: 1 }).expect(200);

    const before = Date.now();
    const res = await env.http.post(snoozePath(id)).set(a.auth).send({ for: '8h' }).expect(200);
    const until = Date.parse(res.body.snoozedUntil);
    expect(until).toBeGreaterThanOrEqual(before + 8 * 3_600_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 8 * 3_600_000);
    expect(res.body).toMatchObject({ delivery: 'daily', rearmPoints: 1 });

    const at = new Date(Date.now() + 2 * 86_400_000).toISOString();
    expect((await env.http.post(snoozePath(id)).set(a.auth).send({ until: at }).expect(200)).body).toEqual({
      snoozedUntil: at,
      delivery: 'daily',
      rearmPoints: 1,
    });

    for (const [body, message] of [
      [{ for: '2h' }, /for must be one of: 1h, 8h, 24h, 1w/],
      [{ until: '2001-01-01T00:00:00Z' }, /until must be in the future/],
      [{ for: '1h', until: at }, /exactly one of for, until/],
      [{}, /exactly one of for, until/],
    ] as const) {
      expect((await env.http.post(snoozePath(id)).set(a.auth).send(body).expect(400)).body.error).toMatch(message);
    }

    expect((await env.http.delete(snoozePath(id)).set(a.auth).expect(200)).body).toEqual({ snoozedUntil: null, delivery: 'daily', rearmPoints: 1 });
  });
});

describe(`snooze delivery (${engineName})`, () => {
  it('a snoozed rule fills the inbox, sends no webhook or chat message, and sends again once unsnoozed', async () => {
    const a = await env.newAccount();
    const { sub, hooks } = await ruleWithChannels(a);
    const id = sub.subscriptionId;
    const chatsBefore = bot.callsTo('sendMessage').length;
    const { body } = await env.http.post(snoozePath(id)).set(a.auth).send({ for: '1h' }).expect(200);

    const snoozed = await fire(env, a, sub);
    // The inbox has it, and says it was snoozed.
    const inbox = await env.http.get('/notifications').set(a.auth).expect(200);
    expect(inbox.body.notifications).toEqual([expect.objectContaining({ id: snoozed.id, snoozedUntil: body.snoozedUntil })]);
    // The other channels are recorded unsent, with the reason, and nothing reaches them.
    const reason = `Not sent: the subscription is snoozed until ${body.snoozedUntil}`;
    // The inbox's own delivery is the worker's to mark.
    await waitFor(async () => (await deliveries(a, snoozed.id))[0]!.status === 'SENT');
    expect(await deliveries(a, snoozed.id)).toEqual([
      expect.objectContaining({ channel: 'In App', status: 'SENT' }),
      expect.objectContaining({ channel: 'Webhook', status: 'FAILED', attempts: [expect.objectContaining({ error: reason })] }),
      expect.objectContaining({ channel: 'Telegram', status: 'FAILED', attempts: [expect.objectContaining({ error: reason })] }),
    ]);
    await expectNothingFor(500, () => [...hooks(), ...bot.callsTo('sendMessage').slice(chatsBefore)], { message: 'a send while snoozed' });
    // A snooze says nothing about the endpoint: the channels stay healthy.
    const health = await env.http.get(`/subscription/${id}/channels/health`).set(a.auth).expect(200);
    expect(health.body.channels.map((c: { state: string }) => c.state)).toEqual(['healthy', 'healthy', 'healthy']);

    await env.http.delete(snoozePath(id)).set(a.auth).expect(200);
    const awake = await fire(env, a, sub);
    const [sent] = await waitFor(() => hooks().length === 1 && hooks());
    expect(sent).toMatchObject({ subscriptionId: id, detectedAtMs: awake.payload.detectedAtMs });
    await waitFor(() => bot.callsTo('sendMessage').length === chatsBefore + 1);
    const later = await env.http.get('/notifications').set(a.auth).expect(200);
    expect(later.body.notifications[0]).not.toHaveProperty('snoozedUntil');
  });

  it('a snooze that runs out ends by itself', async () => {
    const a = await env.newAccount();
    const { sub, hooks } = await ruleWithChannels(a);
    const id = sub.subscriptionId;
    await env.http.post(snoozePath(id)).set(a.auth).send({ until: new Date(Date.now() + 1000).toISOString() }).expect(200);
    await waitFor(async () => (await env.http.get(prefsPath(id)).set(a.auth).expect(200)).body.snoozedUntil === null, {
      message: 'the snooze to run out',
    });
    const { payload } = await fire(env, a, sub);
    const [sent] = await waitFor(() => hooks().length === 1 && hooks());
    expect(sent).toMatchObject({ detectedAtMs: payload.detectedAtMs });
  });
});

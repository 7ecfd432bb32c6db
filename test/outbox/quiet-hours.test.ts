import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { engineName } from '../support/db.js';
import type { TestEnv } from '../support/context.js';
import { expectNothingFor, waitFor } from '../support/wait.js';
import type { Receiver } from '../delivery/support/receiver.js';
import type { FakeBotApi } from '../bots/fake-bot-api.js';
import { createSubscription, fire, startChatOutbox } from './support.js';

const BOT_TOKEN = '123456:quiet-test-token';

let env: TestEnv;
let bot: FakeBotApi;
let receiver: Receiver;
let outbox: Awaited<ReturnType<typeof startChatOutbox>> | undefined;

beforeAll(async () => {
  outbox = await startChatOutbox(BOT_TOKEN);
  ({ env, bot, receiver } = outbox);
});
afterAll(() => outbox?.stop());

/** "HH:MM" in UTC, `minutes` from now. */
const utcClock = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString().slice(11, 16);

describe(`account preferences (${engineName})`, () => {
  it('answers the defaults, replaces the object on PUT with Discord and Telegram as default channels, and validates', async () => {
    const a = await env.newAccount();
    expect((await env.http.get('/preferences').set(a.auth).expect(200)).body).toEqual({ timezone: 'UTC', quietHours: null });
    const put = await env.http.put('/preferences').set(a.auth).send({ timezone: 'Europe/Berlin', quietHours: { start: '22:00', end: '07:00' } }).expect(200);
    expect(put.body).toEqual({ timezone: 'Europe/Berlin', quietHours: { start: '22:00', end: '07:00', channels: ['Discord', 'Telegram'] } });
    expect((await env.http.get('/preferences').set(a.auth).expect(200)).body).toEqual(put.body);
    // Another account sees its own defaults.
    const b = await env.newAccount();
    expect((await env.http.get('/preferences').set(b.auth).expect(200)).body).toEqual({ timezone: 'UTC', quietHours: null });

    for (const [body, message] of [
      [{ timezone: 'Mars/Olympus' }, /IANA time zone/],
      [{ quietHours: { start: '24:00', end: '07:00' } }, /HH:MM/],
      [{ quietHours: { start: '7:00', end: '08:00' } }, /HH:MM/],
      [{ quietHours: { start: '07:00', end: '07:00' } }, /start and end must differ/],
      [{ quietHours: { start: '22:00', end: '07:00', channels: ['Pager'] } }, /channels must be of/],
      [{ quietHours: { start: '22:00' } }, /end/],
      [{ volume: 0 }, /volume/],
    ] as const) {
      expect((await env.http.put('/preferences').set(a.auth).send(body).expect(400)).body.error).toMatch(message);
    }
    await env.http.put('/preferences').set(a.auth).send({}).expect(200, { timezone: 'UTC', quietHours: null });
  });
});

describe(`quiet hours hold chat deliveries (${engineName})`, () => {
  it('holds a Telegram alert until quiet hours end while the inbox and the webhook get it at once', async () => {
    const a = await env.newAccount();
    const chatId = 5151;
    const path = '/quiet-hook';
    const sub = await createSubscription(env, a, [
      { type: 'In App' },
      { type: 'Webhook', settings: { webhookUrl: `${receiver.url}${path}` } },
      { type: 'Telegram', settings: { telegramChatId: chatId } },
    ]);
    await env.http.put('/preferences').set(a.auth).send({ quietHours: { start: utcClock(-60), end: utcClock(120) } }).expect(200);
    const toChat = () => bot.callsTo('sendMessage').filter((c) => c.body.chat_id === chatId);

    const { id } = await fire(env, a, sub);
    await waitFor(() => receiver.requests.some((r) => r.url === path), { message: 'the webhook, not held' });
    await expectNothingFor(500, toChat, { message: 'a chat message in quiet hours' });
    const [held] = await env.database.rows<{ status: string; due: string }>(
      sql`select status, due_at::text as due from deliveries where notification_id = ${id} and channel_type = 'Telegram'`,
    );
    expect(held!.status).toBe('PENDING');
    const dueMs = Date.parse(held!.due.replace(' ', 'T').replace(/\+00$/, 'Z'));
    expect(dueMs).toBeGreaterThan(Date.now() + 60 * 60_000);
    expect(dueMs).toBeLessThanOrEqual(Date.now() + 121 * 60_000);
    // The end is a whole minute: the local wall time the account gave.
    expect(dueMs % 60_000).toBe(0);

    // Outside quiet hours, the chat gets it at once.
    await env.http.put('/preferences').set(a.auth).send({ quietHours: { start: utcClock(120), end: utcClock(180) } }).expect(200);
    await fire(env, a, sub);
    await waitFor(() => toChat().length === 1, { message: 'the chat message outside quiet hours' });
  });
});

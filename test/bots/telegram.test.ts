import express from 'express';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBotsRole } from '../../src/bots/role.js';
import { createTelegramBot, TELEGRAM_MENU, webhookSecret } from '../../src/bots/telegram/index.js';
import { createLogger } from '../../src/logger.js';
import { findOrCreateChatAccount } from '../../src/services/accounts/index.js';
import { getPreferences, getSubscription } from '../../src/services/subscriptions/index.js';
import { encodeButton } from '../../src/domain/button-actions.js';
import type { Update } from 'grammy/types';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { startFakeBotApi, type FakeBotApi } from './fake-bot-api.js';

const TOKEN = '123456:TEST-token';
let env: TestEnv;
let api: FakeBotApi;
let event: SeededEvent;
const logger = createLogger('silent');
let updateId = 1;

const user = (id: number) => ({ id, is_bot: false, first_name: `User ${id}` });

function commandUpdate(fromId: number, text: string, chat: { id: number; type: 'private' | 'group' } = { id: fromId, type: 'private' }): Update {
  const length = text.split(' ')[0]!.length;
  return {
    update_id: updateId++,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: chat.type === 'private' ? { ...chat, first_name: 'U' } : { ...chat, title: 'Group' },
      from: user(fromId),
      text,
      entities: [{ type: 'bot_command', offset: 0, length }],
    },
  } as Update;
}

function callbackUpdate(fromId: number, data: string, chat: { id: number; type: 'private' | 'group' } = { id: fromId, type: 'private' }) {
  return {
    update_id: updateId++,
    callback_query: {
      id: `cb-${updateId}`,
      from: user(fromId),
      chat_instance: 'ci',
      data,
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        chat: chat.type === 'private' ? { ...chat, first_name: 'U' } : { ...chat, title: 'Group' },
        text: 'x',
      },
    },
  } as Update;
}

function makeBot() {
  return createTelegramBot({ token: TOKEN, apiRoot: api.url, deps: { database: env.database, config: env.config, logger } });
}

beforeAll(async () => {
  env = await createTestEnv();
  api = await startFakeBotApi(TOKEN);
  event = await seedEvent(env.database, { title: 'Election turnout record', markets: 2 });
});
afterAll(async () => {
  await api?.close();
  await env?.close();
});

describe('the Telegram bot against a local fake Bot API', () => {
  it('answers /search with the events and an inline keyboard of watch and alert buttons', async () => {
    const bot = makeBot();
    await bot.init();
    await bot.handleUpdate(commandUpdate(7001, '/search election turnout'));
    const sent = api.callsTo('sendMessage').at(-1)!.body;
    expect(sent.chat_id).toBe(7001);
    expect(sent.text).toContain('Election turnout record');
    // One row per event: Watch, then an Alert per market (the guided alert, alert-flow.test.ts).
    expect(sent.reply_markup.inline_keyboard).toEqual([
      [
        { text: 'Watch A', callback_data: `watch:${event.id}` },
        { text: 'Alert 1', callback_data: `flow:a:${event.markets[0]!.id}` },
        { text: 'Alert 2', callback_data: `flow:a:${event.markets[1]!.id}` },
      ],
    ]);
  });

  it('a search result whose title is cut inside an emoji still reaches Telegram, with the emoji left out whole', async () => {
    // Titles are cut at 100 characters; a cut through 🎉 would leave half of it, which Telegram refuses.
    const title = `Quokka ${'x'.repeat(91)}🎉 party`;
    const party = await seedEvent(env.database, { title });
    const bot = makeBot();
    await bot.init();
    await bot.handleUpdate(commandUpdate(7005, '/search quokka'));
    expect(api.refused).toEqual([]);
    const sent = api.callsTo('sendMessage').at(-1)!.body;
    expect(sent.chat_id).toBe(7005);
    expect(sent.text.split('\n')[0]).toBe(`A. Quokka ${'x'.repeat(91)}… (event ${party.id})`);
    expect(sent.reply_markup.inline_keyboard).toEqual([
      [
        { text: 'Watch A', callback_data: `watch:${party.id}` },
        { text: 'Alert 1', callback_data: `flow:a:${party.markets[0]!.id}` },
      ],
    ]);
  });

  it('/alerts longer than a Telegram message keeps whole lines and pages the rest behind Next', async () => {
    const long = await seedEvent(env.database, { title: `Long list ${'y'.repeat(600)}` });
    const bot = makeBot();
    await bot.init();
    for (let percent = 10; percent < 18; percent++) await bot.handleUpdate(commandUpdate(7006, `/alert ${long.markets[0]!.id} up ${percent}`));
    await bot.handleUpdate(commandUpdate(7006, '/alerts'));
    expect(api.refused).toEqual([]);
    const { text } = api.callsTo('sendMessage').at(-1)!.body;
    expect(text.length).toBeLessThanOrEqual(4096);
    const lines: string[] = text.split('\n');
    expect(lines[0]).toBe('Your alerts (8):');
    // Every alert shown is shown whole; the rest are on the next page, behind Next.
    const shown = lines.slice(1, -1);
    for (const line of shown) expect(line).toMatch(/^\d\. "Long list y+: outcome 1\?" rises above 1\d% · every 30m · active · not fired yet$/);
    expect(shown.length).toBeLessThan(8);
    expect(lines.at(-1)).toBe('Page 1 of 2');
    expect(api.callsTo('sendMessage').at(-1)!.body.reply_markup.inline_keyboard.at(-1)).toEqual([{ text: 'Next ▶', callback_data: 'page:alerts:2' }]);
  });

  it('creates an alert for this chat, and the pause button pauses it and answers the callback', async () => {
    const bot = makeBot();
    await bot.init();
    await bot.handleUpdate(commandUpdate(7002, `/alert@OddswatchTestBot ${event.markets[0]!.id} down 35 every 60m`));
    const sent = api.callsTo('sendMessage').at(-1)!.body;
    expect(sent.chat_id).toBe(7002);
    expect(sent.text).toContain('Crossing Down 35%');
    const pause = sent.reply_markup.inline_keyboard[0][0];
    expect(pause.callback_data).toMatch(/^pause:/);
    const subscriptionId = pause.callback_data.slice('pause:'.length);

    await bot.handleUpdate(callbackUpdate(7002, pause.callback_data));
    // The tap edits the message it is on: "Paused ✓" and a Resume button in place of Pause.
    const edited = api.callsTo('editMessageText').at(-1)!.body;
    expect(edited.text).toMatch(/^Paused ✓\n/);
    const account = await findOrCreateChatAccount(env, { kind: 'telegram', userId: '7002' });
    const ctx = { database: env.database, config: env.config, logger, account };
    const stored = await getSubscription({ ctx, input: { subscriptionId } });
    expect(stored.status).toEqual({ enabled: false, reason: 'Paused by user' });
    expect(stored.channels).toEqual([{ type: 'Telegram', settings: { telegramChatId: 7002 } }]);
    expect(edited.reply_markup.inline_keyboard[0][0].callback_data).toBe(`resume:${subscriptionId}`);
  });

  it("the Snooze button under an alert snoozes it and answers until when; another person's tap finds nothing", async () => {
    const bot = makeBot();
    await bot.init();
    await bot.handleUpdate(commandUpdate(7003, `/alert ${event.markets[0]!.id} up 65 every 60m`));
    const pause = api.callsTo('sendMessage').at(-1)!.body.reply_markup.inline_keyboard[0][0];
    const subscriptionId = pause.callback_data.slice('pause:'.length);
    const account = await findOrCreateChatAccount(env, { kind: 'telegram', userId: '7003' });
    const ctx = { database: env.database, config: env.config, logger, caller: { kind: 'system' as const }, account };

    // The button data as the alert message's facts write it.
    const snooze = encodeButton('snooze', subscriptionId, '8h')!;
    await bot.handleUpdate(callbackUpdate(7004, snooze));
    expect(api.callsTo('answerCallbackQuery').at(-1)!.body.text).toMatch(/can't find that alert/);
    expect((await getPreferences({ ctx, input: { subscriptionId } })).snoozedUntil).toBeNull();

    const before = Date.now();
    await bot.handleUpdate(callbackUpdate(7003, snooze));
    const { snoozedUntil } = await getPreferences({ ctx, input: { subscriptionId } });
    expect(Date.parse(snoozedUntil!)).toBeGreaterThanOrEqual(before + 8 * 3_600_000);
    const shown = `${snoozedUntil!.slice(0, 10)} ${snoozedUntil!.slice(11, 16)} UTC`;
    const answered = [api.callsTo('answerCallbackQuery').at(-1)!.body.text, api.callsTo('sendMessage').at(-1)!.body.text].join('\n');
    expect(answered).toContain(`Snoozed alert ${subscriptionId} until ${shown}`);

    // The typed command names a wrong length and the right ones.
    await bot.handleUpdate(commandUpdate(7003, `/snooze ${subscriptionId} 2h`));
    expect(api.callsTo('sendMessage').at(-1)!.body.text).toMatch(/2h is not a snooze length.*1h.*8h.*24h.*1w/s);
  });

  it('in a group, /token goes to the private chat and the group only hears that it was sent', async () => {
    const bot = makeBot();
    await bot.init();
    const before = api.callsTo('sendMessage').length;
    await bot.handleUpdate(commandUpdate(7003, '/token', { id: -5000, type: 'group' }));
    const [dm, inGroup] = api.callsTo('sendMessage').slice(before).map((c) => c.body);
    expect(dm!.chat_id).toBe(7003);
    expect(dm!.text).toMatch(/API token/);
    expect(inGroup!.chat_id).toBe(-5000);
    expect(inGroup!.text).toBe('I sent you a private message.');
  });

  it('/login in a group sends a one-time console link privately; the link signs in once', async () => {
    const bot = makeBot();
    await bot.init();
    const before = api.callsTo('sendMessage').length;
    await bot.handleUpdate(commandUpdate(7004, '/login', { id: -5001, type: 'group' }));
    const [dm, inGroup] = api.callsTo('sendMessage').slice(before).map((c) => c.body);
    expect(dm!.chat_id).toBe(7004);
    expect(inGroup!.text).toBe('I sent you a private message.');
    expect(inGroup!.text).not.toMatch(/code=/);
    const code = /\/app\/login#code=(\S+)/.exec(dm!.text)![1]!;
    const first = await supertest(env.app).post('/sessions').send({ loginCode: decodeURIComponent(code) }).expect(201);
    expect(first.body.userId).toBe((await findOrCreateChatAccount({ database: env.database }, { kind: 'telegram', userId: '7004' })).id);
    await supertest(env.app).post('/sessions').send({ loginCode: decodeURIComponent(code) }).expect(401);
    // The session it started is listed (and revocable) in the chat like a token.
    await bot.handleUpdate(commandUpdate(7004, '/tokens'));
    expect(api.callsTo('sendMessage').at(-1)!.body.text).toMatch(/\d\. web console — ows_\S+… made/);
  });

  it("in a group, another member's tap on someone's Pause is answered to the tapper alone and pauses nothing", async () => {
    const bot = makeBot();
    await bot.init();
    const group = { id: -5100, type: 'group' as const };
    await bot.handleUpdate(commandUpdate(7010, `/alert ${event.markets[0]!.id} up 70`, group));
    const pause = api.callsTo('sendMessage').at(-1)!.body.reply_markup.inline_keyboard[0][0].callback_data as string;
    const sentBefore = api.callsTo('sendMessage').length;

    await bot.handleUpdate(callbackUpdate(7011, pause, group));
    const answered = api.callsTo('answerCallbackQuery').at(-1)!.body;
    expect(answered.show_alert).toBe(true);
    expect(answered.text).toMatch(/can't find that alert/);
    expect(api.callsTo('sendMessage').length).toBe(sentBefore); // nothing posted in the group
    const owner = await findOrCreateChatAccount(env, { kind: 'telegram', userId: '7010' });
    const ctx = { database: env.database, config: env.config, logger, caller: { kind: 'system' as const }, account: owner };
    const stored = await getSubscription({ ctx, input: { subscriptionId: pause.slice('pause:'.length) } });
    expect(stored.status.enabled).toBe(true);
  });

  it('in a group, /alerts, /watchlists, /inbox and /tokens go to the private chat; the group hears only that', async () => {
    const bot = makeBot();
    await bot.init();
    const group = { id: -5200, type: 'group' as const };
    await bot.handleUpdate(commandUpdate(7012, `/alert ${event.markets[1]!.id} below 20`, group));
    for (const [command, privately] of [
      ['/alerts', /below 20%/],
      ['/watchlists', /event/],
      ['/inbox', /./],
      ['/tokens', /API tokens/],
    ] as const) {
      const before = api.callsTo('sendMessage').length;
      await bot.handleUpdate(commandUpdate(7012, command, group));
      const [dm, inGroup, ...more] = api.callsTo('sendMessage').slice(before).map((c) => c.body);
      expect(more).toEqual([]);
      expect(dm!.chat_id).toBe(7012);
      expect(dm!.text).toMatch(privately);
      expect(inGroup).toMatchObject({ chat_id: -5200, text: 'I sent you a private message.' });
      expect(inGroup!.reply_markup).toBeUndefined();
    }
  });

  it('in a group, a personal list for someone who never opened a private chat says how to get it, and shows nothing', async () => {
    const bot = makeBot();
    await bot.init();
    const group = { id: -5300, type: 'group' as const };
    await bot.handleUpdate(commandUpdate(7013, `/alert ${event.markets[1]!.id} above 90`, group));
    api.blockedChats.add(7013);
    const before = api.callsTo('sendMessage').length;
    await bot.handleUpdate(commandUpdate(7013, '/alerts', group));
    const inGroup = api.callsTo('sendMessage').slice(before).map((c) => c.body).filter((b) => b.chat_id === -5300);
    expect(inGroup).toHaveLength(1);
    expect(inGroup[0]!.text).toBe('I cannot write to you privately yet: open a private chat with me, press Start, and ask there again.');
    api.blockedChats.delete(7013);
  });

  it('ignores commands addressed to another bot', async () => {
    const bot = makeBot();
    await bot.init();
    const before = api.calls.length;
    await bot.handleUpdate(commandUpdate(7004, '/help@SomeOtherBot', { id: -6000, type: 'group' }));
    expect(api.calls.length).toBe(before);
  });

  it('the bots role sets the command menu and serves webhook updates when TELEGRAM_WEBHOOK_URL is set', async () => {
    const config = { ...env.config, TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_URL: api.url, TELEGRAM_WEBHOOK_URL: 'https://bots.example.com/telegram' };
    const role = await startBotsRole({ database: env.database, config, logger });
    // The bot connects in the background: start never waits on Telegram.
    await expect.poll(() => role.status()[0]?.state, { timeout: 5000 }).toBe('connected');
    expect(role.status()[0]).toMatchObject({ platform: 'telegram', mode: 'webhook' });
    expect(api.callsTo('setMyCommands').at(-1)!.body.commands).toEqual(TELEGRAM_MENU);
    expect(api.callsTo('setWebhook').at(-1)!.body).toEqual({ url: 'https://bots.example.com/telegram', secret_token: webhookSecret(TOKEN) });
    const { path, handler } = role.telegram!.webhook!;
    expect(path).toBe('/telegram');
    const app = express().use(express.json()).post(path, handler);
    await supertest(app).post('/telegram').send(commandUpdate(7005, '/help')).expect(401); // no secret header
    await supertest(app)
      .post('/telegram')
      .set('X-Telegram-Bot-Api-Secret-Token', webhookSecret(TOKEN))
      .send(commandUpdate(7005, '/help'))
      .expect(200);
    expect(api.callsTo('sendMessage').at(-1)!.body).toMatchObject({ chat_id: 7005, text: expect.stringContaining('/alert') });
    await role.stop();
  });

  it('the bots role long-polls by default and stops cleanly', async () => {
    const config = { ...env.config, TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_URL: api.url, TELEGRAM_WEBHOOK_URL: undefined };
    const role = await startBotsRole({ database: env.database, config, logger });
    api.queueUpdate(commandUpdate(7006, '/inbox'));
    await expect.poll(() => api.callsTo('sendMessage').some((c) => c.body.chat_id === 7006), { timeout: 5000 }).toBe(true);
    await role.stop();
  });

  it('starts no bot without TELEGRAM_BOT_TOKEN', async () => {
    const role = await startBotsRole({ database: env.database, config: { ...env.config, TELEGRAM_BOT_TOKEN: undefined }, logger });
    expect(role.telegram).toBeUndefined();
    await role.stop();
  });
});

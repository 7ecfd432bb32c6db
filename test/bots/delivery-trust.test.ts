import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Update } from 'grammy/types';
import { count, eq } from 'drizzle-orm';
import { deliveryWords } from '../../src/bots/commands/alert-history.js';
import { COMMANDS, runCommand } from '../../src/bots/commands/index.js';
import { TEST_SENT } from '../../src/bots/commands/test-alert.js';
import { createDiscordBot, DISCORD_COMMANDS, EPHEMERAL, NEED_WEBHOOK_PERMISSION, type RawInteraction } from '../../src/bots/discord/index.js';
import { createTelegramBot, TELEGRAM_MENU } from '../../src/bots/telegram/index.js';
import { notifications } from '../../src/db/schema/index.js';
import { TEST_LABEL } from '../../src/delivery/senders/summary.js';
import { createLogger } from '../../src/logger.js';
import { findOrCreateChatAccount } from '../../src/services/accounts/index.js';
import { markNotificationRead } from '../../src/services/inbox/index.js';
import { json, startReceiver, type Receiver } from '../delivery/support/receiver.js';
import { createSubscription, fire, fireMany, OUTBOX_SETTINGS, startWorker, waitFor } from '../outbox/support.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { startFakeBotApi, type FakeBotApi } from './fake-bot-api.js';
import { restSideOf } from './chat-accounts.js';
import { onlyCallback, startFakeDiscordApi, type FakeDiscordApi } from './fake-discord-api.js';

const TG_TOKEN = '123456:delivery-trust-bot-token';
const APP = '444555666';
const logger = createLogger('silent');
/** The tail of `/alerts <id>`: the alert's noise settings, here all default (noise.test.ts changes them). */
const DEFAULT_SETTINGS = ['', 'Delivery: each firing is sent at once', 'Re-arm band: none (it may fire on every crossing)', 'Not snoozed'];
const NOT_FOUND = "I can't find that alert (it may have been deleted). Send /alerts to see yours.";

let env: TestEnv;
let telegram: FakeBotApi;
let discord: FakeDiscordApi;
const receivers: Receiver[] = [];
let updateId = 1;
let interactionId = 1;

beforeAll(async () => {
  telegram = await startFakeBotApi(TG_TOKEN);
  discord = await startFakeDiscordApi(APP);
  env = await createTestEnv({ ...OUTBOX_SETTINGS, TELEGRAM_BOT_TOKEN: TG_TOKEN, TELEGRAM_API_URL: telegram.url, DISCORD_APPLICATION_ID: APP });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await telegram?.close();
  await discord?.close();
  await env?.close();
});

const deps = () => ({ database: env.database, config: env.config, logger });
const answer = (i: RawInteraction): { content: string; flags?: number } => onlyCallback(discord, i).data;
const restSide = (kind: 'telegram' | 'discord', userId: string) => restSideOf(env, logger, kind, userId);
async function telegramBot() {
  const bot = createTelegramBot({ token: TG_TOKEN, apiRoot: telegram.url, deps: deps() });
  await bot.init(); // getMe, from the fake
  return bot;
}
const discordBot = () => createDiscordBot({ token: 'discord-bot-token', applicationId: APP, apiUrl: discord.url, deps: deps() });

function command(fromId: number, text: string, chat: { id: number; type: 'private' | 'group' } = { id: fromId, type: 'private' }): Update {
  return {
    update_id: updateId++,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: chat.type === 'private' ? { ...chat, first_name: 'U' } : { ...chat, title: 'Group' },
      from: { id: fromId, is_bot: false, first_name: `User ${fromId}` },
      text,
      entities: [{ type: 'bot_command', offset: 0, length: text.split(' ')[0]!.length }],
    },
  } as Update;
}

/** What the bot said in `chatId` after the call count `from`. */
const saidIn = (chatId: number, from: number) => telegram.callsTo('sendMessage').slice(from).filter((c) => c.body.chat_id === chatId).map((c) => c.body);

function slash(userId: string, name: string, options: Record<string, string> = {}, where: { guild?: string; channel?: string } = {}): RawInteraction {
  const id = String(interactionId++);
  const { guild = 'g1', channel = 'c1' } = where;
  const who = guild ? { guild_id: guild, member: { user: { id: userId } } } : { user: { id: userId } };
  return {
    id,
    token: `itoken-trust-${id}`,
    type: 2,
    application_id: APP,
    channel_id: channel,
    ...who,
    data: { name, options: Object.entries(options).map(([n, value]) => ({ name: n, type: 3, value })) },
  };
}


/** How a firing's time reads in chat. */
const firedAt = (payload: { detectedAt: string }) => `${payload.detectedAt.slice(0, 19).replace('T', ' ')} UTC`;

describe(`/alerts <rule> in the bots (${engineName})`, () => {
  it("Telegram: shows each firing's time, price and every channel's delivery status in words", async () => {
    const hook = await startReceiver((_req, res) => json(res, 500, { error: 'boom' }));
    receivers.push(hook);
    const bot = await telegramBot();
    await bot.handleUpdate(command(7101, '/help')); // the first message makes the account
    const user = await restSide('telegram', '7101');
    const sub = await createSubscription(env, user, [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: `${hook.url}/hook` } }]);

    const worker = await startWorker(env.database, env.config);
    let first!: Awaited<ReturnType<typeof fire>>;
    try {
      first = await fire(env, user, sub);
      await waitFor(async () => hook.requests.length === 3 && (await runCommand(user.ctx, { kind: 'telegram', chatId: 7101, isPrivate: true }, `alerts ${sub.subscriptionId}`)).text.includes('failed'));
    } finally {
      await worker.stop();
    }
    await markNotificationRead({ ctx: user.ctx, input: { notificationId: first.id! } });
    const second = await fire(env, user, sub); // no worker now: it waits

    const before = telegram.callsTo('sendMessage').length;
    await bot.handleUpdate(command(7101, `/alerts ${sub.subscriptionId}`));
    expect(saidIn(7101, before).map((m) => m.text)).toEqual([
      [
        `Alert ${sub.subscriptionId} fired 2 times:`,
        `• ${firedAt(second.payload)} — Will A win? 53.5 % · ⬆ Crossed above 50 %`,
        '   In App: waiting',
        '   Webhook: waiting',
        `• ${firedAt(first.payload)} — Will A win? 53.5 % · ⬆ Crossed above 50 %`,
        '   In App: read',
        '   Webhook: failed after 3 tries (HTTP 500)',
        ...DEFAULT_SETTINGS,
      ].join('\n'),
    ]);
  });

  it('Telegram: shows the last five of a longer history, says when a rule never fired, and keeps /alerts as it was', async () => {
    const bot = await telegramBot();
    await bot.handleUpdate(command(7102, '/help'));
    const user = await restSide('telegram', '7102');
    const busy = await createSubscription(env, user, [{ type: 'In App' }]);
    const quiet = await createSubscription(env, user, [{ type: 'In App' }]);
    await fireMany(env, user, busy, 7);

    const before = telegram.callsTo('sendMessage').length;
    await bot.handleUpdate(command(7102, `/alerts ${busy.subscriptionId}`));
    await bot.handleUpdate(command(7102, `/alerts@OddswatchTestBot ${quiet.subscriptionId}`));
    await bot.handleUpdate(command(7102, '/alerts'));
    const [history, never, list] = saidIn(7102, before).map((m) => m.text as string);
    const lines = history!.split('\n');
    expect(lines[0]).toBe(`The last 5 firings of alert ${busy.subscriptionId} (older ones are in the REST API):`);
    expect(lines.filter((l) => l.startsWith('• '))).toHaveLength(5);
    expect(lines.filter((l) => l === '   In App: waiting')).toHaveLength(5);
    expect(never).toBe([`Alert ${quiet.subscriptionId} has not fired yet.`, ...DEFAULT_SETTINGS].join('\n'));
    expect(list).toMatch(/^Your alerts \(\d+\):\n1\. "/);
    expect(list).not.toContain(busy.subscriptionId);
  });

  it("answers an unknown alert, or another user's, with the chat not-found words; extra words with the usage", async () => {
    const owner = await restSide('telegram', '7103');
    const sub = await createSubscription(env, owner, [{ type: 'In App' }]);
    await fire(env, owner, sub);
    const bot = await telegramBot();
    const before = telegram.callsTo('sendMessage').length;
    await bot.handleUpdate(command(7104, `/alerts ${sub.subscriptionId}`));
    await bot.handleUpdate(command(7104, '/alerts 0193-no-such-alert'));
    await bot.handleUpdate(command(7104, '/alerts one two'));
    await bot.handleUpdate(command(7104, `/alerts ${'x'.repeat(201)}`));
    expect(saidIn(7104, before).map((m) => m.text)).toEqual([
      NOT_FOUND,
      NOT_FOUND,
      'Usage: /alerts [alert id]',
      'That id is too long: at most 200 characters.\nUsage: /alerts [alert id]',
    ]);
  });

  it('Discord: /alerts id: answers privately with the history; another user gets not found', async () => {
    const bot = discordBot();
    const made = slash('8101', 'alert', { market: 'x' }, { guild: '', channel: 'dm-8101' });
    await bot.handleInteraction(made); // makes the account (the alert itself is refused: no such market)
    const user = await restSide('discord', '8101');
    const sub = await createSubscription(env, user, [{ type: 'In App' }]);
    const fired = await fire(env, user, sub);

    const mine = slash('8101', 'alerts', { id: sub.subscriptionId });
    await bot.handleInteraction(mine);
    expect(answer(mine)).toMatchObject({
      content: [`Alert ${sub.subscriptionId} fired once:`, `• ${firedAt(fired.payload)} — Will A win? 53.5 % · ⬆ Crossed above 50 %`, '   In App: waiting', ...DEFAULT_SETTINGS].join('\n'),
      flags: EPHEMERAL,
    });
    const theirs = slash('8102', 'alerts', { id: sub.subscriptionId });
    await bot.handleInteraction(theirs);
    expect(answer(theirs)).toEqual({ content: NOT_FOUND, flags: EPHEMERAL });
  });

  it('puts every delivery status in words a person understands', () => {
    const attempt = (statusCode: number | null, error: string | null) => ({ at: '2026-11-24T01:00:00.000Z', statusCode, error, durationMs: 5 });
    const words = (status: Parameters<typeof deliveryWords>[0]['status'], attempts: ReturnType<typeof attempt>[] = []) =>
      deliveryWords({ id: 'd', channel: 'Webhook', status, attempts });
    expect(words('SENT', [attempt(200, null)])).toBe('delivered');
    expect(words('READ')).toBe('read');
    expect(words('BLOCKED_BY_USER', [attempt(403, 'Telegram HTTP 403: Forbidden: bot was blocked by the user')])).toBe('blocked by the user');
    expect(words('PENDING')).toBe('waiting');
    expect(words('PENDING', [attempt(503, 'HTTP 503: busy')])).toBe('waiting to retry (1 try so far, last: HTTP 503)');
    expect(words('FAILED', [attempt(503, 'HTTP 503'), attempt(503, 'HTTP 503'), attempt(503, 'HTTP 503: {"error":"down"}')])).toBe('failed after 3 tries (HTTP 503)');
    expect(words('FAILED', [attempt(null, 'timed out after 5000 ms')])).toBe('failed after 1 try (timed out after 5000 ms)');
    expect(words('FAILED', [attempt(404, 'Discord webhook was deleted or its token is invalid (HTTP 404)')])).toBe(
      'failed after 1 try (Discord webhook was deleted or its token is invalid (HTTP 404))',
    );
    expect(words('FAILED')).toBe('failed');
  });
});

describe(`/testalert in the bots (${engineName})`, () => {
  it('is in /help, the Telegram command menu and the Discord slash commands', async () => {
    const ctx = (await restSide('telegram', '7200')).ctx;
    expect((await runCommand(ctx, { kind: 'telegram', chatId: 7200, isPrivate: true }, 'help')).text).toContain(
      '/testalert — Send a test alert to this chat, to check alerts reach it',
    );
    expect(TELEGRAM_MENU).toContainEqual({ command: 'testalert', description: 'Send a test alert to this chat, to check alerts reach it' });
    expect(DISCORD_COMMANDS.map((c) => c.name)).toContain('testalert');
    expect(COMMANDS.map((c) => c.name)).toContain('testalert');
    const alerts = DISCORD_COMMANDS.find((c) => c.name === 'alerts')!;
    expect(alerts.options).toEqual([expect.objectContaining({ name: 'id', required: false, autocomplete: true })]);
  });

  it('Telegram: sends a message labelled Test to this chat, answers "Test alert sent ✓", stores nothing', async () => {
    const bot = await telegramBot();
    for (const [from, chat] of [
      [7201, { id: 7201, type: 'private' }],
      [7202, { id: -1007202, type: 'group' }],
    ] as const) {
      const before = telegram.callsTo('sendMessage').length;
      await bot.handleUpdate(command(from, '/testalert', chat));
      const [sample, reply] = saidIn(chat.id, before);
      expect(sample!.text.split('\n')[0]).toBe(`<b>${TEST_LABEL}</b>`);
      expect(sample!.text).toContain('Will this test alert reach you?');
      expect(reply!.text).toBe(TEST_SENT);
      const account = await findOrCreateChatAccount(env, { kind: 'telegram', userId: String(from) });
      const [stored] = await env.database.db.select({ n: count() }).from(notifications).where(eq(notifications.accountId, account.id));
      expect(stored!.n).toBe(0);
    }
  });

  it("Discord: the channel's Oddswatch webhook receives the test, a deleted one is made anew, a DM gets it from the bot; a channel without permission says why", async () => {
    const bot = discordBot();
    const sent = slash('8201', 'testalert', {}, { channel: 'chan-test' });
    await bot.handleInteraction(sent);
    expect(answer(sent)).toEqual({ content: TEST_SENT, flags: EPHEMERAL });
    const [made] = discord.callsTo('POST', /^\/v10\/channels\/chan-test\/webhooks$/);
    expect(made!.body).toEqual({ name: 'Oddswatch' });
    const posts = discord.callsTo('POST', /^\/api\/webhooks\//);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body.embeds[0].description).toContain(`**${TEST_LABEL}**`);

    // /alert in the same channel would use the same webhook: the test proves that one works.
    const alert = slash('8201', 'alert', { market: 'nope', condition: 'up 50' }, { channel: 'chan-test' });
    await bot.handleInteraction(alert);
    expect(discord.callsTo('POST', /^\/v10\/channels\/chan-test\/webhooks$/)).toHaveLength(1);

    // Deleted in Discord: the test asks Discord rather than the bot's memory, makes a new webhook
    // and posts there, and /alert here then uses the new one.
    discord.deleteWebhooks('chan-test');
    const again = slash('8201', 'testalert', {}, { channel: 'chan-test' });
    await bot.handleInteraction(again);
    expect(answer(again)).toEqual({ content: TEST_SENT, flags: EPHEMERAL });
    expect(discord.callsTo('POST', /^\/v10\/channels\/chan-test\/webhooks$/)).toHaveLength(2);
    const newHook = discord.callsTo('POST', /^\/api\/webhooks\//).at(-1)!.path;
    expect(newHook).not.toBe(posts[0]!.path);
    await bot.handleInteraction(slash('8201', 'alert', { market: 'nope', condition: 'up 50' }, { channel: 'chan-test' }));
    expect(discord.callsTo('POST', /^\/v10\/channels\/chan-test\/webhooks$/)).toHaveLength(2);

    // In a DM the test goes where /alert there sends: a message of the bot's own in the DM (the
    // bots role has DISCORD_TOKEN and DISCORD_API_URL in its settings).
    const postsBefore = discord.callsTo('POST', /^\/api\/webhooks\//).length;
    const botSettings = { ...env.config, DISCORD_TOKEN: 'discord-bot-token', DISCORD_API_URL: discord.url };
    const dmBot = createDiscordBot({ token: 'discord-bot-token', applicationId: APP, apiUrl: discord.url, deps: { ...deps(), config: botSettings } });
    const dm = slash('8201', 'testalert', {}, { guild: '', channel: 'dm-8201' });
    await dmBot.handleInteraction(dm);
    expect(answer(dm)).toEqual({ content: TEST_SENT, flags: EPHEMERAL });
    const [dmPost, ...moreDm] = discord.callsTo('POST', /^\/v10\/channels\/dm-8201\/messages$/);
    expect(moreDm).toEqual([]);
    expect(dmPost!.authorization).toBe('Bot discord-bot-token');
    expect(dmPost!.body.embeds[0].description).toContain(`**${TEST_LABEL}**`);
    expect(dmPost!.body.components).toHaveLength(1); // the links only: a test has no rule to pause
    discord.forbiddenChannels.add('chan-locked');
    const locked = slash('8201', 'testalert', {}, { channel: 'chan-locked' });
    await bot.handleInteraction(locked);
    expect(answer(locked)).toEqual({ content: NEED_WEBHOOK_PERMISSION, flags: EPHEMERAL });
    expect(discord.callsTo('POST', /^\/api\/webhooks\//)).toHaveLength(postsBefore);
  });

  it('a failed test is told in chat words: the status, or that the webhook was deleted', async () => {
    const hook = await startReceiver((_req, res) => json(res, 500, { error: 'boom' }));
    receivers.push(hook);
    const { ctx } = await restSide('discord', '8202');
    const chat = { kind: 'discord' as const, chatId: 'chan-x', isPrivate: false, channel: { type: 'Discord' as const, settings: { discordWebhookUrl: `${hook.url}/api/webhooks/1/t` } } };
    expect((await runCommand(ctx, chat, 'testalert')).text).toBe('The test alert did not arrive: HTTP 500: {"error":"boom"}');
    expect(hook.requests).toHaveLength(1);
    expect((await runCommand(ctx, chat, 'testalert now')).text).toBe('Usage: /testalert');
    const deleted = { ...chat, channel: { type: 'Discord' as const, settings: { discordWebhookUrl: `${discord.url}/api/webhooks/1/gone` } } };
    expect((await runCommand(ctx, deleted, 'testalert')).text).toBe(
      "The test alert did not arrive: Discord says this channel's Oddswatch webhook was deleted. Send /testalert again to set up a new one.",
    );
  });
});

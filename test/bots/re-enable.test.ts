import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Update } from 'grammy/types';
import { inArray } from 'drizzle-orm';
import { COMMANDS, runCommand } from '../../src/bots/commands/index.js';
import { createDiscordBot, DISCORD_COMMANDS, EPHEMERAL, type RawInteraction } from '../../src/bots/discord/index.js';
import { createTelegramBot, TELEGRAM_MENU } from '../../src/bots/telegram/index.js';
import { priceSamples } from '../../src/db/schema/index.js';
import { createSenders } from '../../src/delivery/senders/index.js';
import { formatTelegramMessage } from '../../src/delivery/senders/telegram.js';
import { createLogger } from '../../src/logger.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createSubscription, fire, OUTBOX_SETTINGS, startWorker, waitFor } from '../outbox/support.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { startFakeBotApi, type FakeBotApi } from './fake-bot-api.js';
import { restSideOf } from './chat-accounts.js';
import { onlyCallback, startFakeDiscordApi, type FakeDiscordApi } from './fake-discord-api.js';
import { sampleDaysFor } from '../support/sample-days.js';

// #18 in chat: the Re-enable button under a disabled-channel notice, /enable, and the 7-day
// "would have fired" line under /alert. Notices are made for real: a rule fires, the worker finds
// a deleted Discord webhook (Discord 404 disables a channel at once) and tells the other channels.

const TG_TOKEN = '123456:re-enable-bot-token';
const APP = '777888999';
const logger = createLogger('silent');
const NOT_FOUND = "I can't find that alert (it may have been deleted). Send /alerts to see yours.";
const MINUTE = 60_000;

let env: TestEnv;
let telegram: FakeBotApi;
let discord: FakeDiscordApi;
let worker: Awaited<ReturnType<typeof startWorker>>;
let event: SeededEvent;
let updateId = 1;
let interactionId = 1;

beforeAll(async () => {
  telegram = await startFakeBotApi(TG_TOKEN);
  discord = await startFakeDiscordApi(APP);
  env = await createTestEnv({ ...OUTBOX_SETTINGS, TELEGRAM_BOT_TOKEN: TG_TOKEN, TELEGRAM_API_URL: telegram.url, DISCORD_APPLICATION_ID: APP });
  worker = await startWorker(env.database, env.config, {
    // A send timeout no loaded machine reaches: nothing here hangs.
    senders: createSenders({ allowPrivateUrls: true, timeoutMs: 30_000, telegram: { botToken: TG_TOKEN, apiRoot: telegram.url }, discord: { applicationId: APP } }),
  });
  event = await seedEvent(env.database, { title: 'Look-back event', markets: 2 });
});
afterAll(async () => {
  await worker?.stop();
  await telegram?.close();
  await discord?.close();
  await env?.close();
});

const deps = () => ({ database: env.database, config: env.config, logger });
const answer = (i: RawInteraction): { content: string; flags?: number } => onlyCallback(discord, i).data;
const restSide = (kind: 'telegram' | 'discord', userId: string) => restSideOf(env, logger, kind, userId);
async function telegramBot() {
  const bot = createTelegramBot({ token: TG_TOKEN, apiRoot: telegram.url, deps: deps() });
  await bot.init();
  return bot;
}
const discordBot = () => createDiscordBot({ token: 'discord-bot-token', applicationId: APP, apiUrl: discord.url, deps: deps() });

function command(fromId: number, text: string, chatId = fromId): Update {
  return {
    update_id: updateId++,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: chatId === fromId ? { id: chatId, type: 'private', first_name: 'U' } : { id: chatId, type: 'group', title: 'Group' },
      from: { id: fromId, is_bot: false, first_name: `User ${fromId}` },
      text,
      entities: [{ type: 'bot_command', offset: 0, length: text.split(' ')[0]!.length }],
    },
  } as Update;
}

function tap(fromId: number, chatId: number, data: string): Update {
  return {
    update_id: updateId++,
    callback_query: {
      id: `cb-${updateId}`,
      from: { id: fromId, is_bot: false, first_name: `User ${fromId}` },
      chat_instance: 'ci',
      data,
      message: { message_id: 1, date: Math.floor(Date.now() / 1000), chat: { id: chatId, type: 'group', title: 'Group' }, text: 'x' },
    },
  } as Update;
}

const saidIn = (chatId: number, from: number) => telegram.callsTo('sendMessage').slice(from).filter((c) => c.body.chat_id === chatId).map((c) => c.body);

function interaction(userId: string, type: 2 | 3, data: RawInteraction['data'], channel = 'c1'): RawInteraction {
  const id = String(interactionId++);
  return { id, token: `itoken-reenable-${id}`, type, application_id: APP, channel_id: channel, guild_id: 'g1', member: { user: { id: userId } }, data };
}

async function health(a: TestAccount, subscriptionId: string) {
  const res = await env.http.get(`/subscription/${subscriptionId}/channels/health`).set(a.auth).expect(200);
  return (res.body.channels as { position: number; state: string }[]).map((c) => c.state);
}

const deletedHook = () => `${discord.url}/api/webhooks/1/gone`;

describe(`Re-enable a disabled channel from chat (${engineName})`, () => {
  it('is /enable in /help, the Telegram menu and the Discord slash commands', async () => {
    const { ctx } = await restSide('telegram', '7300');
    const help = (await runCommand(ctx, { kind: 'telegram', chatId: 7300, isPrivate: true }, 'help')).text;
    expect(help).toContain('/enable <alert id> <channel number> — Turn an alert channel disabled for failing back on');
    expect(TELEGRAM_MENU).toContainEqual({ command: 'enable', description: 'Turn an alert channel disabled for failing back on' });
    expect(COMMANDS.map((c) => c.name)).toContain('enable');
    const enable = DISCORD_COMMANDS.find((c) => c.name === 'enable')!;
    expect(enable.options).toEqual([
      expect.objectContaining({ name: 'id', required: true, autocomplete: true }),
      expect.objectContaining({ name: 'channel', required: true }),
    ]);
  });

  it('Telegram: the disabled notice carries Re-enable; a stranger is told not found privately, the owner re-enables it', async () => {
    const bot = await telegramBot();
    const group = -1007301;
    await bot.handleUpdate(command(7301, '/help'));
    const owner = await restSide('telegram', '7301');
    const sub = await createSubscription(env, owner, [
      { type: 'Telegram', settings: { telegramChatId: group } },
      { type: 'Discord', settings: { discordWebhookUrl: deletedHook() } },
    ]);
    const before = telegram.callsTo('sendMessage').length;
    await fire(env, owner, sub);
    const notice = await waitFor(async () => saidIn(group, before).find((m) => String(m.text).startsWith('<b>Alert channel disabled</b>')));
    expect(notice.reply_markup).toEqual({ inline_keyboard: [[{ text: 'Re-enable', callback_data: `enable:${sub.subscriptionId}:1` }]] });
    expect(Buffer.byteLength(`enable:${sub.subscriptionId}:1`)).toBeLessThanOrEqual(64);
    expect(await health(owner, sub.subscriptionId)).toEqual(['healthy', 'disabled']);

    // Another member of the group taps it: a private popup, nothing in the chat, nothing changed.
    const beforeTaps = telegram.callsTo('sendMessage').length;
    const answersBefore = telegram.callsTo('answerCallbackQuery').length;
    await bot.handleUpdate(tap(7302, group, `enable:${sub.subscriptionId}:1`));
    await bot.handleUpdate(tap(7301, group, `enable:${sub.subscriptionId}:1`));
    expect(telegram.callsTo('answerCallbackQuery').slice(answersBefore).map((c) => [c.body.text, c.body.show_alert])).toEqual([
      [NOT_FOUND, true],
      ['Re-enabled ✓: the Discord channel will be tried again on the next alert', true],
    ]);
    expect(telegram.callsTo('sendMessage').length).toBe(beforeTaps);
    expect(await health(owner, sub.subscriptionId)).toEqual(['healthy', 'healthy']);
  });

  it('Telegram: the typed /enable re-enables; bad words get the usage, an unknown channel says so', async () => {
    const bot = await telegramBot();
    await bot.handleUpdate(command(7303, '/help'));
    const owner = await restSide('telegram', '7303');
    const sub = await createSubscription(env, owner, [{ type: 'In App' }, { type: 'Discord', settings: { discordWebhookUrl: deletedHook() } }]);
    await fire(env, owner, sub);
    await waitFor(async () => (await health(owner, sub.subscriptionId))[1] === 'disabled');

    const before = telegram.callsTo('sendMessage').length;
    await bot.handleUpdate(command(7303, `/enable ${sub.subscriptionId} one`));
    await bot.handleUpdate(command(7303, `/enable ${sub.subscriptionId} 5`));
    await bot.handleUpdate(command(7304, `/enable ${sub.subscriptionId} 1`));
    expect(await health(owner, sub.subscriptionId)).toEqual(['healthy', 'disabled']);
    await bot.handleUpdate(command(7303, `/enable ${sub.subscriptionId} 1`));
    expect(saidIn(7303, before).map((m) => m.text)).toEqual([
      'one is not a channel number: write digits only, like 1.\nUsage: /enable <alert id> <channel number>',
      "I can't find that channel.",
      'Re-enabled ✓: the Discord channel will be tried again on the next alert',
    ]);
    expect(saidIn(7304, before).map((m) => m.text)).toEqual([NOT_FOUND]);
    expect(await health(owner, sub.subscriptionId)).toEqual(['healthy', 'healthy']);
  });

  it("Discord: the notice through our webhook has Re-enable (a foreign one has none); clicks and /enable answer privately", async () => {
    const bot = discordBot();
    await bot.handleInteraction(interaction('8301', 2, { name: 'help' })); // makes the account
    const owner = await restSide('discord', '8301');
    const ours = discord.addForeignWebhook('chan-ours', APP);
    const foreign = discord.addForeignWebhook('chan-foreign');
    const sub = await createSubscription(env, owner, [
      { type: 'Discord', settings: { discordWebhookUrl: ours } },
      { type: 'Discord', settings: { discordWebhookUrl: deletedHook() } },
      { type: 'Discord', settings: { discordWebhookUrl: foreign } },
    ]);
    await fire(env, owner, sub);
    const noticeTo = (hook: string) =>
      discord.callsTo('POST', /^\/api\/webhooks\//).find((c) => hook.endsWith(c.path) && c.body.embeds?.[0]?.title === 'Alert channel disabled');
    const [mine, theirs] = await waitFor(async () => noticeTo(ours) && noticeTo(foreign) && [noticeTo(ours)!, noticeTo(foreign)!]);
    const action = `enable:${sub.subscriptionId}:1`;
    expect(mine.body.components).toEqual([{ type: 1, components: [{ type: 2, style: 3, label: 'Re-enable', custom_id: action }] }]);
    expect(theirs.body.components).toBeUndefined();

    const stranger = interaction('8302', 3, { custom_id: action }, 'chan-ours');
    await bot.handleInteraction(stranger);
    expect(answer(stranger)).toEqual({ content: NOT_FOUND, flags: EPHEMERAL });
    expect(await health(owner, sub.subscriptionId)).toEqual(['healthy', 'disabled', 'healthy']);
    const click = interaction('8301', 3, { custom_id: action }, 'chan-ours');
    await bot.handleInteraction(click);
    expect(answer(click)).toEqual({ content: 'Re-enabled ✓: the Discord channel will be tried again on the next alert', flags: EPHEMERAL });
    expect(await health(owner, sub.subscriptionId)).toEqual(['healthy', 'healthy', 'healthy']);

    // The slash command does the same.
    await fire(env, owner, sub);
    await waitFor(async () => (await health(owner, sub.subscriptionId))[1] === 'disabled');
    const typed = interaction('8301', 2, { name: 'enable', options: [{ name: 'id', type: 3, value: sub.subscriptionId }, { name: 'channel', type: 4, value: 1 }] });
    await bot.handleInteraction(typed);
    expect(answer(typed)).toEqual({ content: 'Re-enabled ✓: the Discord channel will be tried again on the next alert', flags: EPHEMERAL });
    expect(await health(owner, sub.subscriptionId)).toEqual(['healthy', 'healthy', 'healthy']);
  });
});

describe('the Re-enable button', () => {
  const links = { venueUrl: 'https://example.com/m' };
  const notice = (event: string, subscriptionId: string) => ({
    type: 'endpoint_health_notification', event, subscriptionId, channel: { position: 2, type: 'Webhook' }, message: 'm',
  });
  it('shows only under a disabled notice, and only when the action fits Telegram\'s 64-byte callback_data', () => {
    const id = '0193a1b2-0000-7000-8000-000000000000';
    expect(formatTelegramMessage(notice('endpoint_disabled', id), links).reply_markup.inline_keyboard).toEqual([
      [{ text: 'Re-enable', callback_data: `enable:${id}:2` }],
    ]);
    expect(formatTelegramMessage(notice('endpoint_failing', id), links).reply_markup.inline_keyboard).toEqual([]);
    expect(formatTelegramMessage(notice('endpoint_disabled', 'x'.repeat(60)), links).reply_markup.inline_keyboard).toEqual([]);
  });
});

describe(`/alert says how often the new rule would have fired (${engineName})`, () => {
  /** 40% → 60% → 40% → 60% over the last days: "up 50" crosses twice, "above 90" never. */
  async function record(token: string) {
    const base = Math.floor(Date.now() / MINUTE) * MINUTE - 2 * 24 * 60 * MINUTE;
    await env.database.db.delete(priceSamples).where(inArray(priceSamples.tokenId, [token]));
    await sampleDaysFor(env.database.db, 'price_samples', [0, 10, 20, 120].map((m) => new Date(base + m * MINUTE)));
    await env.database.db.insert(priceSamples).values(
      [
        [0, 0.4],
        [10, 0.6],
        [20, 0.4],
        [120, 0.6],
      ].map(([m, price]) => ({ tokenId: token, minute: new Date(base + m! * MINUTE), price: price! })),
    );
  }

  it('Telegram: the reply adds the 7-day line; with no recorded prices it says nothing of it', async () => {
    const [recorded, bare] = event.markets;
    await record(recorded!.yesTokenId);
    const bot = await telegramBot();
    const before = telegram.callsTo('sendMessage').length;
    await bot.handleUpdate(command(7401, `/alert ${recorded!.id} up 50`));
    await bot.handleUpdate(command(7401, `/alert ${recorded!.id} above 90 once`));
    await bot.handleUpdate(command(7401, `/alert ${bare!.id} up 50`));
    const [twice, never, none] = saidIn(7401, before).map((m) => String(m.text).split('\n'));
    expect(twice![0]).toBe('Alert created:');
    expect(twice!.at(-1)).toBe('In the last 7 days this alert would have fired 2 times.');
    expect(never!.at(-1)).toBe('In the last 7 days this alert would not have fired.');
    expect(none).toHaveLength(2);
    expect(none![0]).toBe('Alert created:');
  });

  it('Discord: /alert answers with the same line', async () => {
    const [recorded] = event.markets;
    await record(recorded!.yesTokenId);
    const i = interaction('8401', 2, {
      name: 'alert',
      options: [
        { name: 'market', type: 3, value: recorded!.id },
        { name: 'condition', type: 3, value: 'up 50' },
      ],
    }, 'chan-lookback');
    await discordBot().handleInteraction(i);
    const lines = answer(i).content.split('\n');
    expect(lines[0]).toBe('Alert created:');
    expect(lines.at(-1)).toBe('In the last 7 days this alert would have fired 2 times.');
  });
});

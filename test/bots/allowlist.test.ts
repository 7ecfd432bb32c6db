import { eq, or } from 'drizzle-orm';
import type { Update } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFUSED, REFUSED_DISCORD_DM } from '../../src/bots/allowlist.js';
import { createDiscordBot, EPHEMERAL, type RawInteraction } from '../../src/bots/discord/index.js';
import { createTelegramBot } from '../../src/bots/telegram/index.js';
import { ConfigError, parseConfig } from '../../src/config.js';
import { accounts } from '../../src/db/schema/index.js';
import { createLogger } from '../../src/logger.js';
import { createTestEnv, TEST_SETTINGS, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { startFakeBotApi, type FakeBotApi } from './fake-bot-api.js';
import { onlyCallback, startFakeDiscordApi, type FakeDiscordApi } from './fake-discord-api.js';

const TOKEN = '123456:TEST-token';
const APP = '111222333';
const GUILD = '400000000000000001';
const OTHER_GUILD = '400000000000000002';
const LISTED_USER = '500000000000000001';
const logger = createLogger('silent');
let env: TestEnv;
let telegramApi: FakeBotApi;
let discordApi: FakeDiscordApi;
let updateId = 1;
let interactionId = 1;

beforeAll(async () => {
  env = await createTestEnv();
  telegramApi = await startFakeBotApi(TOKEN);
  discordApi = await startFakeDiscordApi(APP);
});
afterAll(async () => {
  await telegramApi?.close();
  await discordApi?.close();
  await env?.close();
});

const configWith = (settings: Record<string, string>) => parseConfig({ ...TEST_SETTINGS, ...settings });

async function telegramBot(settings: Record<string, string>) {
  const bot = createTelegramBot({ token: TOKEN, apiRoot: telegramApi.url, deps: { database: env.database, config: configWith(settings), logger } });
  await bot.init();
  return bot;
}

const message = (fromId: number, text: string, chat: { id: number; type: 'private' | 'group' } = { id: fromId, type: 'private' }) =>
  ({
    update_id: updateId++,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: chat.type === 'private' ? { ...chat, first_name: 'U' } : { ...chat, title: 'Group' },
      from: { id: fromId, is_bot: false, first_name: 'U' },
      text,
      ...(text.startsWith('/') ? { entities: [{ type: 'bot_command', offset: 0, length: text.split(' ')[0]!.length }] } : {}),
    },
  }) as Update;

const tap = (fromId: number, data: string) =>
  ({
    update_id: updateId++,
    callback_query: {
      id: `cb-${updateId}`,
      from: { id: fromId, is_bot: false, first_name: 'U' },
      chat_instance: 'ci',
      data,
      message: { message_id: 1, date: Math.floor(Date.now() / 1000), chat: { id: fromId, type: 'private', first_name: 'U' }, text: 'x' },
    },
  }) as Update;

const sentTo = (chatId: number) => telegramApi.callsTo('sendMessage').filter((c) => c.body.chat_id === chatId);
const accountsOf = (userId: string) =>
  env.database.db.select().from(accounts).where(or(eq(accounts.telegramUserId, userId), eq(accounts.discordUserId, userId)));

function interaction(userId: string, type: number, where: { guild?: string }, data: RawInteraction['data'] = { name: 'help', options: [] }): RawInteraction {
  const id = String(interactionId++);
  const who = where.guild ? { guild_id: where.guild, member: { user: { id: userId } } } : { user: { id: userId } };
  return { id, token: `itoken${id}`, type, application_id: APP, channel_id: 'c1', ...who, data };
}

describe('the bot allowlist settings', () => {
  it('parse comma-separated ids; unset means open', () => {
    const config = configWith({ BOT_ALLOWED_TELEGRAM_USERS: ' 123, 456 ', BOT_ALLOWED_DISCORD_GUILDS: GUILD });
    expect([...config.BOT_ALLOWED_TELEGRAM_USERS!]).toEqual(['123', '456']);
    expect([...config.BOT_ALLOWED_DISCORD_GUILDS!]).toEqual([GUILD]);
    expect(config.BOT_ALLOWED_DISCORD_USERS).toBeUndefined();
    expect(configWith({}).BOT_ALLOWED_TELEGRAM_USERS).toBeUndefined();
  });

  it.each([
    ['BOT_ALLOWED_TELEGRAM_USERS', '123,@alice', /BOT_ALLOWED_TELEGRAM_USERS="123,@alice": must be Telegram user ids \(numbers\) separated by commas .*not understood: @alice/],
    ['BOT_ALLOWED_TELEGRAM_USERS', ',', /must be Telegram user ids/],
    ['BOT_ALLOWED_DISCORD_GUILDS', 'my-server', /BOT_ALLOWED_DISCORD_GUILDS="my-server": must be Discord server \(guild\) ids .*not understood: my-server/],
    ['BOT_ALLOWED_DISCORD_USERS', '12345', /must be Discord user ids .*not understood: 12345/],
  ])('refuse a bad %s at start, naming the value', (name, value, message) => {
    expect(() => configWith({ [name]: value })).toThrow(ConfigError);
    expect(() => configWith({ [name]: value })).toThrow(message);
  });
});

describe(`Telegram with BOT_ALLOWED_TELEGRAM_USERS (${engineName})`, () => {
  it('answers listed users; tells anyone else once, politely, and stores nothing for them', async () => {
    const bot = await telegramBot({ BOT_ALLOWED_TELEGRAM_USERS: '6101' });
    await bot.handleUpdate(message(6101, '/watchlists'));
    expect(sentTo(6101).at(-1)!.body.text).not.toBe(REFUSED);
    expect(await accountsOf('6101')).toHaveLength(1);

    await bot.handleUpdate(message(6102, '/watchlists'));
    await bot.handleUpdate(message(6102, '/help'));
    await bot.handleUpdate(message(6102, 'hello?'));
    expect(sentTo(6102).map((c) => c.body.text)).toEqual([REFUSED]);
    await bot.handleUpdate(tap(6102, 'pause:x'));
    expect(telegramApi.callsTo('answerCallbackQuery').at(-1)!.body).toMatchObject({ text: REFUSED.slice(0, 200), show_alert: true });
    expect(await accountsOf('6102')).toEqual([]);
  });

  it('in a group, a refused member is told once and only when they address the bot', async () => {
    const bot = await telegramBot({ BOT_ALLOWED_TELEGRAM_USERS: '6101' });
    const group = { id: -6200, type: 'group' as const };
    await bot.handleUpdate(message(6201, 'just chatting', group));
    expect(sentTo(-6200)).toEqual([]);
    await bot.handleUpdate(message(6201, '/search x', group));
    await bot.handleUpdate(message(6201, '/search y', group));
    expect(sentTo(-6200).map((c) => c.body.text)).toEqual([REFUSED]);
    expect(await accountsOf('6201')).toEqual([]);
  });

  it('unset: everyone is answered, as before', async () => {
    const bot = await telegramBot({});
    await bot.handleUpdate(message(6301, '/watchlists'));
    expect(sentTo(6301).at(-1)!.body.text).not.toBe(REFUSED);
    expect(await accountsOf('6301')).toHaveLength(1);
  });
});

describe(`Discord with BOT_ALLOWED_DISCORD_GUILDS and BOT_ALLOWED_DISCORD_USERS (${engineName})`, () => {
  const bot = (settings: Record<string, string>) =>
    createDiscordBot({ token: 'discord-bot-token', applicationId: APP, apiUrl: discordApi.url, deps: { database: env.database, config: configWith(settings), logger } });

  it('answers anyone in a listed server; refuses other servers and DMs to the caller alone, storing nothing', async () => {
    const b = bot({ BOT_ALLOWED_DISCORD_GUILDS: GUILD });
    const inListed = interaction('500000000000000101', 2, { guild: GUILD }, { name: 'watchlists', options: [] });
    await b.handleInteraction(inListed);
    expect(onlyCallback(discordApi, inListed).data.content).not.toBe(REFUSED);
    expect(await accountsOf('500000000000000101')).toHaveLength(1);

    const elsewhere = interaction('500000000000000102', 2, { guild: OTHER_GUILD }, { name: 'watchlists', options: [] });
    await b.handleInteraction(elsewhere);
    expect(onlyCallback(discordApi, elsewhere)).toEqual({ type: 4, data: expect.objectContaining({ content: REFUSED, flags: EPHEMERAL }) });
    const dm = interaction('500000000000000101', 2, {}, { name: 'watchlists', options: [] });
    await b.handleInteraction(dm);
    expect(onlyCallback(discordApi, dm).data).toMatchObject({ content: REFUSED_DISCORD_DM, flags: EPHEMERAL });
    const typing = interaction('500000000000000102', 4, { guild: OTHER_GUILD }, { name: 'alert', options: [{ name: 'market', type: 3, value: 'mar', focused: true }] });
    await b.handleInteraction(typing);
    expect(onlyCallback(discordApi, typing)).toEqual({ type: 8, data: { choices: [] } });
    expect(await accountsOf('500000000000000102')).toEqual([]);
  });

  it('a listed user is answered anywhere, DMs too', async () => {
    const b = bot({ BOT_ALLOWED_DISCORD_GUILDS: GUILD, BOT_ALLOWED_DISCORD_USERS: LISTED_USER });
    const dm = interaction(LISTED_USER, 2, {}, { name: 'watchlists', options: [] });
    await b.handleInteraction(dm);
    expect(onlyCallback(discordApi, dm).data.content).not.toBe(REFUSED_DISCORD_DM);
    const other = interaction(LISTED_USER, 2, { guild: OTHER_GUILD }, { name: 'watchlists', options: [] });
    await b.handleInteraction(other);
    expect(onlyCallback(discordApi, other).data.content).not.toBe(REFUSED);
  });

  it('with only the users list, everyone else is refused everywhere, in the plain words', async () => {
    const b = bot({ BOT_ALLOWED_DISCORD_USERS: LISTED_USER });
    for (const where of [{}, { guild: GUILD }]) {
      const i = interaction('500000000000000301', 2, where, { name: 'help', options: [] });
      await b.handleInteraction(i);
      expect(onlyCallback(discordApi, i).data).toMatchObject({ content: REFUSED, flags: EPHEMERAL });
    }
    expect(await accountsOf('500000000000000301')).toEqual([]);
  });
});

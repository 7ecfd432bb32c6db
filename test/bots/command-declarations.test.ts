import type { Update } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runButton, runCommand, STALE_BUTTON, type ChatInfo } from '../../src/bots/commands/index.js';
import { createDiscordBot, EPHEMERAL, type RawInteraction } from '../../src/bots/discord/index.js';
import { createTelegramBot } from '../../src/bots/telegram/index.js';
import { decodeButton, encodeButton } from '../../src/domain/button-actions.js';
import { createLogger } from '../../src/logger.js';
import { findOrCreateChatAccount } from '../../src/services/accounts/index.js';
import type { ServiceContext } from '../../src/services/context.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { startFakeBotApi, type FakeBotApi } from './fake-bot-api.js';
import { onlyCallback, startFakeDiscordApi, type FakeDiscordApi } from './fake-discord-api.js';

// Each command declared once: what a user sees of it on each platform, from the same declaration.

const APP = '444555666';
const TG_TOKEN = '654321:DECL-token';
const logger = createLogger('silent');
let env: TestEnv;
let discordApi: FakeDiscordApi;
let telegramApi: FakeBotApi;
let event: SeededEvent;
let nextId = 1;

beforeAll(async () => {
  env = await createTestEnv();
  discordApi = await startFakeDiscordApi(APP);
  telegramApi = await startFakeBotApi(TG_TOKEN);
  event = await seedEvent(env.database, { title: 'Comet visible by naked eye', markets: 1 });
});
afterAll(async () => {
  await discordApi?.close();
  await telegramApi?.close();
  await env?.close();
});

async function telegramUser(id: string): Promise<ServiceContext> {
  const account = await findOrCreateChatAccount(env, { kind: 'telegram', userId: id });
  return { database: env.database, config: env.config, logger, account };
}
const dm = (id: number): ChatInfo => ({ kind: 'telegram', chatId: id, isPrivate: true });

function discordBot(log = logger) {
  return createDiscordBot({ token: 'decl-bot-token', applicationId: APP, apiUrl: discordApi.url, deps: { database: env.database, config: env.config, logger: log } });
}
function interaction(userId: string, type: number, data: RawInteraction['data']): RawInteraction {
  const id = `d${nextId++}`;
  return { id, token: `dtoken-${id}`, type, application_id: APP, guild_id: 'g-decl', channel_id: 'c-decl', member: { user: { id: userId } }, data };
}
const slash = (userId: string, name: string, options: Record<string, string | number> = {}) =>
  interaction(userId, 2, { name, options: Object.entries(options).map(([n, value]) => ({ name: n, type: typeof value === 'number' ? 10 : 3, value })) });
const answer = (i: RawInteraction) => onlyCallback(discordApi, i).data as { content: string; flags?: number };

describe('/help in each platform\'s own syntax', () => {
  it('Telegram shows positional words, Discord shows named options', async () => {
    const telegram = (await runCommand(await telegramUser('9501'), dm(9501), '/help')).text;
    expect(telegram).toContain('/alert <market id> <condition> [once | every 5m|30m|60m|6h|12h|24h] — Alert this chat when a market moves, trades big, resolves or nears its close');
    expect(telegram).toContain('/pause <alert id> — Pause an alert');
    expect(telegram).toContain('/watchlist new <name> | show <watchlist> | rename <id> <name> | delete <watchlist>');
    expect(telegram).toContain('/revoke <number> — Revoke an API token (its number in /tokens)');

    const help = slash('9502', 'help');
    await discordBot().handleInteraction(help);
    const discord = answer(help);
    expect(discord.content).toContain('/alert market:… condition:… [repeat:…] — Alert this chat when a market moves, trades big, resolves or nears its close');
    expect(discord.content).toContain('/watchlist new name:… | show watchlist:… | rename id:… name:… | delete watchlist:…');
    expect(discord.content).not.toContain('<');
    expect(discord.flags).toBeUndefined(); // help is for the channel
  });
});

describe('a wrong word is named with its fix, the same on both platforms', () => {
  it('Telegram words and Discord options get the same sentence, each with its own usage line', async () => {
    const ctx = await telegramUser('9503');
    const market = event.markets[0]!.id;
    expect((await runCommand(ctx, dm(9503), `alert ${market} up 150`)).text).toBe(
      '150 is not a percentage between 0 and 100.\nUsage: /alert <market id> <condition> [once | every 5m|30m|60m|6h|12h|24h]',
    );
    // The condition is one text option on Discord: its words are read by the same grammar.
    const hundred = slash('9503', 'alert', { market, condition: 'up 100' });
    await discordBot().handleInteraction(hundred);
    expect(answer(hundred)).toEqual({ content: '100 is not a percentage between 0 and 100.\nUsage: /alert market:… condition:… [repeat:…]', flags: EPHEMERAL });
    const sideways = slash('9503', 'alert', { market, condition: 'sideways 50' });
    await discordBot().handleInteraction(sideways);
    expect(answer(sideways).content).toMatch(/^sideways is not a condition: use up, down, cross, step, above, below, jumps, drops, moves, trade, volume, resolution or closing\.\n/);
  });

  it('"not found" says what, privately on Discord, with no REST word', async () => {
    const i = slash('9504', 'pause', { id: 'no-such-alert' });
    await discordBot().handleInteraction(i);
    expect(answer(i)).toEqual({ content: "I can't find that alert (it may have been deleted). Send /alerts to see yours.", flags: EPHEMERAL });
  });
});

describe('Discord: answers about the caller\'s own rules are ephemeral; search stays public', () => {
  it('alert, pause and delete answer privately; search publicly', async () => {
    const bot = discordBot();
    const create = interaction('9505', 2, { name: 'alert', options: [
      { name: 'market', type: 3, value: event.markets[0]!.id },
      { name: 'condition', type: 3, value: 'above 40' },
      { name: 'repeat', type: 3, value: 'once' },
    ] });
    // In a DM: no channel webhook, the alert goes to the inbox.
    delete create.guild_id;
    create.user = create.member!.user;
    delete create.member;
    await bot.handleInteraction(create);
    expect(answer(create).flags).toBe(EPHEMERAL);
    expect(answer(create).content).toContain('Greater Than 40%');
    expect(answer(create).content).toContain(', once —');
    const id = /• (\S+):/.exec(answer(create).content)![1]!;

    for (const name of ['pause', 'resume', 'delete']) {
      const i = slash('9505', name, { id });
      await bot.handleInteraction(i);
      expect(answer(i).flags, name).toBe(EPHEMERAL);
    }
    const search = slash('9505', 'search', { query: 'comet' });
    await bot.handleInteraction(search);
    expect(answer(search).flags).toBeUndefined();
    expect(answer(search).content).toContain('Comet visible by naked eye');
  });
});

describe('Discord autocomplete', () => {
  it('logs a service failure once, without secrets, and answers an empty list', async () => {
    const lines: string[] = [];
    const bot = discordBot(createLogger('debug', { write: (line: string) => lines.push(line) }));
    const typed = 'x'.repeat(201); // more than a search term may hold: the search service refuses it
    const i = interaction('9506', 4, { name: 'alert', options: [{ name: 'market', type: 3, value: typed, focused: true }] });
    await bot.handleInteraction(i);
    expect(onlyCallback(discordApi, i)).toEqual({ type: 8, data: { choices: [] } });
    const logged = lines.map((l) => JSON.parse(l) as { msg: string; source?: string }).filter((l) => l.msg.startsWith('discord autocomplete failed'));
    expect(logged).toHaveLength(1);
    expect(logged[0]!.source).toBe('market');
    expect(lines.join('\n')).not.toContain('decl-bot-token');
    expect(lines.join('\n')).not.toContain(i.token);
  });

  it('offers the market a typed word finds', async () => {
    const i = interaction('9507', 4, { name: 'alert', options: [{ name: 'market', type: 3, value: 'comet', focused: true }] });
    await discordBot().handleInteraction(i);
    // The label tells the watched outcome's price too (#16 item 6; this catalog row has no end date).
    expect(onlyCallback(discordApi, i).data.choices).toEqual([{ name: `${event.markets[0]!.question} · Yes 50 %`, value: event.markets[0]!.id }]);
  });
});

describe('the button protocol', () => {
  it('encodes and decodes, and refuses what would not fit Telegram (64 bytes) or Discord (100 characters)', () => {
    const id = '0b9f5a52-7c1e-4d3b-9a57-1f2e3d4c5b6a';
    expect(encodeButton('pause', id)).toBe(`pause:${id}`);
    expect(encodeButton('enable', id, 2)).toBe(`enable:${id}:2`);
    expect(decodeButton(`enable:${id}:2`)).toEqual({ command: 'enable', words: [id, '2'] });
    expect(encodeButton('watch', 'é'.repeat(29))).toBeDefined(); // 6 + 58 bytes: exactly Telegram's 64
    expect(encodeButton('watch', 'é'.repeat(30))).toBeUndefined(); // 66 bytes, though only 36 characters
    expect(encodeButton('watch', 'a:b')).toBeUndefined();
    expect(decodeButton('frobnicate:1')).toBeUndefined();
    expect(decodeButton('pause:')).toBeUndefined();
  });

  it('a tap with data this protocol never wrote says the button no longer works, to the tapper alone', async () => {
    const reply = await runButton(await telegramUser('9508'), dm(9508), 'frobnicate:1');
    expect(reply).toMatchObject({ text: STALE_BUTTON, tapperOnly: true });
  });
});

describe('API tokens from chat', () => {
  it('/tokens lists them numbered, /revoke <n> revokes one, and the limit says how', async () => {
    const ctx = { ...(await telegramUser('9509')), config: { ...env.config, MAX_TOKENS: 3 } };
    // A chat account is made with one token of its own ("default").
    expect((await runCommand(ctx, dm(9509), 'tokens')).text).toMatch(/^Your API tokens \(newest first\):\n1\. default — \S+… made \d{4}-\d\d-\d\d, last used never\nRevoke one with \/revoke <number>\.$/);
    await runCommand(ctx, dm(9509), 'token');
    await runCommand(ctx, dm(9509), 'token');
    const limit = (await runCommand(ctx, dm(9509), 'token')).text;
    expect(limit).toBe('You already have 3 active API tokens, the most an account may hold. Revoke one first: /tokens lists them, /revoke <number> revokes one.');
    const list = (await runCommand(ctx, dm(9509), 'tokens')).text;
    expect(list).toMatch(/\n1\. telegram bot — .*\n2\. telegram bot — .*\n3\. default — /);
    expect((await runCommand(ctx, dm(9509), 'revoke 4')).text).toBe('You have no token number 4. Send /tokens to see their numbers.');
    expect((await runCommand(ctx, dm(9509), 'revoke two')).text).toBe('two is not a token number: write digits only, like 1.\nUsage: /revoke <number>');
    expect((await runCommand(ctx, dm(9509), 'revoke 3')).text).toMatch(/^Revoked token 3 \(default, \S+…\)\. Programs using it are refused from now on\.$/);
    expect((await runCommand(ctx, dm(9509), 'tokens')).text).not.toContain('default');
    expect((await runCommand(ctx, dm(9509), 'token')).text).toMatch(/^Your API token \(shown once\)/);
  });
});

describe('Telegram free text', () => {
  const text = (fromId: number, chat: { id: number; type: 'private' | 'group' }, words: string): Update =>
    ({
      update_id: nextId++,
      message: {
        message_id: nextId,
        date: Math.floor(Date.now() / 1000),
        chat: chat.type === 'private' ? { ...chat, first_name: 'U' } : { ...chat, title: 'Group' },
        from: { id: fromId, is_bot: false, first_name: 'U' },
        text: words,
      },
    }) as Update;

  it('in a private chat is answered with a hint; in a group it is left alone', async () => {
    const bot = createTelegramBot({ token: TG_TOKEN, apiRoot: telegramApi.url, deps: { database: env.database, config: env.config, logger } });
    await bot.init();
    await bot.handleUpdate(text(9510, { id: 9510, type: 'private' }, 'bitcoin'));
    expect(telegramApi.callsTo('sendMessage').at(-1)!.body).toMatchObject({ chat_id: 9510, text: 'Send /search bitcoin to find a market, or /help for everything I can do.' });
    const before = telegramApi.callsTo('sendMessage').length;
    await bot.handleUpdate(text(9510, { id: -9510, type: 'group' }, 'hello all'));
    expect(telegramApi.callsTo('sendMessage')).toHaveLength(before);
  });
});

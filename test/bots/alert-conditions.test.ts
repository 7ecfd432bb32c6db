import type { Update } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, runCommand } from '../../src/bots/commands/index.js';
import { createDiscordBot, EPHEMERAL, type RawInteraction } from '../../src/bots/discord/index.js';
import { createTelegramBot } from '../../src/bots/telegram/index.js';
import { createLogger } from '../../src/logger.js';
import { findOrCreateChatAccount } from '../../src/services/accounts/index.js';
import { createMarketAlert } from '../../src/services/subscriptions/index.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { startFakeBotApi, type FakeBotApi } from './fake-bot-api.js';
import { onlyCallback, startFakeDiscordApi, type FakeDiscordApi } from './fake-discord-api.js';

// Issue #20 item 7: every rule type made from chat in words, on both platforms, through the strict
// fakes; what was stored is read back over REST, as the person's own API token sees it.

const APP = '777888999';
const TG_TOKEN = '777888:COND-token';
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
  event = await seedEvent(env.database, { title: 'Zephyr rocket launch', markets: 1 });
});
afterAll(async () => {
  await discordApi?.close();
  await telegramApi?.close();
  await env?.close();
});

/** Each form a person types, and the rule the REST API then shows. */
const FORMS: readonly [string, { type: string; params: Record<string, unknown> }, { triggerType: string; triggerInterval?: string }][] = [
  ['jumps 10 in 1h', { type: 'Moves Up By', params: { threshold_percent: 10, window: '1h' } }, { triggerType: 'Recurring' }],
  ['drops 10 in 4h', { type: 'Moves Down By', params: { threshold_percent: 10, window: '4h' } }, { triggerType: 'Recurring' }],
  ['moves 5 in 15m every 5m', { type: 'Moves By', params: { threshold_percent: 5, window: '15m' } }, { triggerType: 'Recurring', triggerInterval: '5m' }],
  ['trade 25000', { type: 'Large Trade', params: { min_usd: 25000 } }, { triggerType: 'Recurring' }],
  ['trade 25k buy', { type: 'Large Trade', params: { min_usd: 25000, side: 'BUY' } }, { triggerType: 'Recurring' }],
  ['trade $1.5m sell once', { type: 'Large Trade', params: { min_usd: 1_500_000, side: 'SELL' } }, { triggerType: 'One Time' }],
  ['volume 3x', { type: 'Volume Spike', params: { multiple: 3 } }, { triggerType: 'Recurring' }],
  ['resolution once', { type: 'Resolution', params: {} }, { triggerType: 'One Time' }],
  ['closing 24h', { type: 'Closing Soon', params: { hours_before: 24 } }, { triggerType: 'Recurring' }],
  ['up 60', { type: 'Crossing Up', params: { threshold_percent: 60 } }, { triggerType: 'Recurring' }],
];

/** Wrong words, each answered with the sentence that names it and the fix (and nothing stored). */
const REFUSALS: readonly [string, string][] = [
  ['trade 0', '0 is not a trade size: give a dollar amount above 0, like trade 25000 or trade 25k.'],
  ['volume 1.2x', '1.2x is not a volume spike: use at least 1.5x the usual volume, like volume 3x.'],
  ['closing 12h', '12h is not a time before the close: use 1h, 6h, 24h or 72h.'],
  ['jumps 10 in 2h', '2h is not a time window: use 5m, 15m, 1h, 4h or 24h, like jumps 10 in 1h.'],
  ['jumps 150 in 1h', '150 is not a number of points between 0 and 100.'],
  ['jumps 10', 'jumps takes points and a time window, like jumps 10 in 1h.'],
  ['trade 25k hold', 'hold is not a side: use buy or sell.'],
  ['trade lots', 'lots is not a dollar amount: write it like 25000, 25k or 1.5m.'],
  ['volume loud', 'loud is not a multiple of the usual volume: write it like volume 3x.'],
  ['resolution now', 'resolution takes nothing after it: /alert <market> resolution.'],
  ['closing soon', 'soon is not a time before the close: write hours, like closing 24h.'],
  ['closing', 'closing takes the hours before the close, like closing 24h.'],
  ['volume', 'volume takes a multiple of the usual volume, like volume 3x.'],
  ['step', 'step takes a step in points, like step 5.'],
  ['sideways 5', 'sideways is not a condition: use up, down, cross, step, above, below, jumps, drops, moves, trade, volume, resolution or closing.'],
];

let updateId = 1;
function commandUpdate(fromId: number, text: string): Update {
  return {
    update_id: updateId++,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: { id: fromId, type: 'private', first_name: 'U' },
      from: { id: fromId, is_bot: false, first_name: `User ${fromId}` },
      text,
      entities: [{ type: 'bot_command', offset: 0, length: text.split(' ')[0]!.length }],
    },
  } as Update;
}

function callbackUpdate(fromId: number, data: string): Update {
  return {
    update_id: updateId++,
    callback_query: {
      id: `cb-${updateId}`,
      from: { id: fromId, is_bot: false, first_name: `User ${fromId}` },
      chat_instance: 'ci',
      data,
      message: { message_id: 1, date: Math.floor(Date.now() / 1000), chat: { id: fromId, type: 'private', first_name: 'U' }, text: 'x' },
    },
  } as Update;
}

function discordBot() {
  return createDiscordBot({ token: 'cond-bot-token', applicationId: APP, apiUrl: discordApi.url, deps: { database: env.database, config: env.config, logger } });
}
/** A slash command or an autocomplete (type 4) in the user's DM with the bot. */
function dmInteraction(userId: string, type: number, data: RawInteraction['data']): RawInteraction {
  const id = `c${nextId++}`;
  return { id, token: `ctoken-${id}`, type, application_id: APP, channel_id: `dm-${userId}`, user: { id: userId }, data };
}
const slash = (userId: string, name: string, options: Record<string, string> = {}) =>
  dmInteraction(userId, 2, { name, options: Object.entries(options).map(([n, value]) => ({ name: n, type: 3, value })) });
const answer = (i: RawInteraction) => onlyCallback(discordApi, i).data as { content: string; flags?: number; choices?: { name: string; value: string }[] };

const subscriptionIdOf = (text: string) => /• (\S+):/.exec(text)![1]!;

/** The REST view of a subscription, read with the person's own API token. */
async function viaRest(token: string, subscriptionId: string) {
  return (await env.http.get(`/subscription/${subscriptionId}`).set({ Authorization: `Bearer ${token}` }).expect(200)).body.subscription;
}
async function restTokenOf(kind: 'telegram' | 'discord', userId: string): Promise<string> {
  const account = await findOrCreateChatAccount(env, { kind, userId });
  const ctx = { database: env.database, config: env.config, logger, account };
  return /\n(\S+)\n/.exec((await runCommand(ctx, { kind, chatId: userId, isPrivate: true }, 'token')).text)![1]!;
}
async function restAlertCount(token: string): Promise<number> {
  return (await env.http.get('/subscriptions').set({ Authorization: `Bearer ${token}` }).expect(200)).body.subscriptions.length;
}

describe('Telegram: /alert <market> <condition> for every rule type', () => {
  it('each form creates the rule it says, with its repeat, and /alerts words each one', async () => {
    const bot = createTelegramBot({ token: TG_TOKEN, apiRoot: telegramApi.url, deps: { database: env.database, config: env.config, logger } });
    await bot.init();
    const token = await restTokenOf('telegram', '9701');
    const market = event.markets[0]!;
    for (const [words, rule, trigger] of FORMS) {
      await bot.handleUpdate(commandUpdate(9701, `/alert ${market.id} ${words}`));
      const sent = telegramApi.callsTo('sendMessage').at(-1)!.body;
      expect(sent.text, words).toMatch(/^Alert created:\n• /);
      const stored = await viaRest(token, subscriptionIdOf(sent.text));
      expect(stored.subscriptionTypeConfig, words).toEqual({ type: rule.type, config: { params: rule.params } });
      expect(stored.subscriptionScope).toBe('Market');
      expect(stored.marketId).toBe(market.id);
      expect({ triggerType: stored.triggerType, ...(trigger.triggerInterval ? { triggerInterval: stored.triggerInterval } : {}) }, words).toEqual(trigger);
      expect(stored.channels).toEqual([{ type: 'Telegram', settings: { telegramChatId: 9701 } }]);
    }
    // Only price rules have a recorded history to replay: no "would have fired" line for the rest.
    expect(telegramApi.callsTo('sendMessage').at(-2)!.body.text).not.toContain('In the last 7 days');

    await bot.handleUpdate(commandUpdate(9701, '/alerts'));
    const first = telegramApi.callsTo('sendMessage').at(-1)!.body;
    const next = (first.reply_markup.inline_keyboard as { text: string; callback_data: string }[][]).flat().find((b) => b.text.startsWith('Next'))!;
    await bot.handleUpdate(callbackUpdate(9701, next.callback_data));
    const list = `${first.text}\n${telegramApi.callsTo('editMessageText').at(-1)!.body.text}`;
    const q = `"${market.question}"`;
    for (const line of [
      `${q} rises 10 points within 1h · every 30m · active · not fired yet`,
      `${q} falls 10 points within 4h · every 30m · active`,
      `${q} moves 5 points within 15m · every 5m · active`,
      `${q} trades $25,000 or more at once · every 30m · active`,
      `${q} trades $25,000 or more (buys) at once · every 30m · active`,
      `${q} trades $1,500,000 or more (sells) at once · once · active`,
      `${q} trades 3× its usual hourly volume · every 30m · active`,
      `${q} has its result proposed, disputed or settled · once · active`,
      `${q} closes within 24h · every 30m · active`,
    ]) {
      expect(list).toContain(line);
    }
  });

  it('wrong words get the sentence naming them and the usage; nothing is stored', async () => {
    const bot = createTelegramBot({ token: TG_TOKEN, apiRoot: telegramApi.url, deps: { database: env.database, config: env.config, logger } });
    await bot.init();
    const token = await restTokenOf('telegram', '9702');
    for (const [words, sentence] of REFUSALS) {
      await bot.handleUpdate(commandUpdate(9702, `/alert ${event.markets[0]!.id} ${words}`));
      expect(telegramApi.callsTo('sendMessage').at(-1)!.body.text, words).toBe(
        `${sentence}\nUsage: /alert <market id> <condition> [once | every 5m|30m|60m|6h|12h|24h]`,
      );
    }
    expect(await restAlertCount(token)).toBe(0);
    // The /alert refused for its condition added the event to no watchlist either.
    const watchlists = (await env.http.get('/watchlists').set({ Authorization: `Bearer ${token}` }).expect(200)).body;
    expect(JSON.stringify(watchlists)).not.toContain(event.id);
  });

  it('/help lists the condition forms under /alert', async () => {
    const account = await findOrCreateChatAccount(env, { kind: 'telegram', userId: '9703' });
    const help = (await runCommand({ database: env.database, config: env.config, logger, account }, { kind: 'telegram', chatId: 9703, isPrivate: true }, '/help')).text;
    expect(help).toContain(
      '/alert <market id> <condition> [once | every 5m|30m|60m|6h|12h|24h] — Alert this chat when a market moves, trades big, resolves or nears its close\n' +
        '   condition: up|down|cross|step|above|below 60 · jumps|drops|moves 10 in 1h · trade 25k [buy|sell] · volume 3x · resolution · closing 24h',
    );
  });
});

describe('/help on Discord', () => {
  it('Discord /help shows the forms too, and still fits one message whole (Discord cuts at 2,000 characters)', async () => {
    const help = slash('9804', 'help');
    await discordBot().handleInteraction(help);
    const text = answer(help).content;
    expect(text).toContain('/alert market:… condition:… [repeat:…] — Alert this chat when a market moves, trades big, resolves or nears its close\n   condition: up|down|');
    expect(text.split('\n').at(-1)).toMatch(new RegExp(`^/${COMMANDS.at(-1)!.name} `)); // the last command: nothing was cut
    expect(text.length).toBeLessThanOrEqual(2000);
  });
});

describe('Discord: /alert market: condition: [repeat:] for every rule type', () => {
  it('each form creates the rule it says, answered privately', async () => {
    const bot = discordBot();
    const token = await restTokenOf('discord', '9801');
    for (const [words, rule, trigger] of FORMS) {
      // The repeat is its own option on Discord.
      const [condition, repeat] = words.split(/ (?=once|every)/);
      const i = slash('9801', 'alert', { market: event.markets[0]!.id, condition: condition!, ...(repeat ? { repeat } : {}) });
      await bot.handleInteraction(i);
      const reply = answer(i);
      expect(reply.content, words).toMatch(/^Alert created:\n• /);
      expect(reply.flags).toBe(EPHEMERAL);
      const stored = await viaRest(token, subscriptionIdOf(reply.content));
      expect(stored.subscriptionTypeConfig, words).toEqual({ type: rule.type, config: { params: rule.params } });
      expect({ triggerType: stored.triggerType, ...(trigger.triggerInterval ? { triggerInterval: stored.triggerInterval } : {}) }, words).toEqual(trigger);
      expect(stored.channels).toEqual([{ type: 'Discord' }]); // a DM: the bot posts it itself
    }
    const list = slash('9801', 'alerts');
    await bot.handleInteraction(list);
    expect(answer(list).content).toContain(`"${event.markets[0]!.question}" trades $25,000 or more (buys) at once · every 30m · active`);
  });

  it('wrong words get the same sentence as on Telegram, privately, with the Discord usage; nothing is stored', async () => {
    const bot = discordBot();
    const token = await restTokenOf('discord', '9802');
    for (const [words, sentence] of REFUSALS) {
      const i = slash('9802', 'alert', { market: event.markets[0]!.id, condition: words });
      await bot.handleInteraction(i);
      expect(answer(i), words).toEqual({ content: `${sentence}\nUsage: /alert market:… condition:… [repeat:…]`, flags: EPHEMERAL });
    }
    expect(await restAlertCount(token)).toBe(0);
  });

  it('autocomplete offers the condition forms, then what the typed words may be heading for, never a value that would be refused', async () => {
    const bot = discordBot();
    const typing = async (value: string) => {
      const i = dmInteraction('9803', 4, {
        name: 'alert',
        options: [
          { name: 'market', type: 3, value: event.markets[0]!.id },
          { name: 'condition', type: 3, value, focused: true },
        ],
      });
      await bot.handleInteraction(i);
      return answer(i).choices!;
    };
    const first = await typing('');
    expect(first.map((c) => c.value)).toEqual([
      'up 60', 'down 40', 'cross 50', 'step 5', 'above 70', 'below 30',
      'jumps 10 in 1h', 'drops 10 in 1h', 'moves 5 in 15m', 'trade 25k', 'trade 25k buy', 'volume 3x', 'resolution', 'closing 24h',
    ]);
    expect(first).toContainEqual({ name: 'jumps 10 in 1h · rises 10 points within 1h', value: 'jumps 10 in 1h' });
    expect(first).toContainEqual({ name: 'trade 25k buy · trades $25,000 or more (buys) at once', value: 'trade 25k buy' });
    expect((await typing('Jumps 15')).map((c) => c.value)).toEqual(['jumps 15 in 5m', 'jumps 15 in 15m', 'jumps 15 in 1h', 'jumps 15 in 4h', 'jumps 15 in 24h']);
    expect((await typing('trade 50k')).map((c) => c.value)).toEqual(['trade 50k', 'trade 50k buy', 'trade 50k sell']);
    expect((await typing('clo')).map((c) => c.value)).toEqual(['closing 1h', 'closing 6h', 'closing 24h', 'closing 72h']);
    expect(await typing('closing 12')).toEqual([]);
    expect(await typing('volume 1.2')).toEqual([]);
  });
});

describe('createMarketAlert', () => {
  it('takes any subscriptionTypeConfig, and a price rule still as type + thresholdPercent; the bounds are the one schema\'s', async () => {
    const account = await findOrCreateChatAccount(env, { kind: 'telegram', userId: '9901' });
    const ctx = { database: env.database, config: env.config, logger, account };
    const channel = { type: 'In App' as const };
    const marketId = event.markets[0]!.id;
    const price = await createMarketAlert({ ctx, input: { marketId, type: 'Crossing Up', thresholdPercent: 60, channel } });
    expect(price.subscriptionTypeConfig).toEqual({ type: 'Crossing Up', config: { params: { threshold_percent: 60 } } });
    const trade = await createMarketAlert({ ctx, input: { marketId, subscriptionTypeConfig: { type: 'Large Trade', config: { params: { min_usd: 5000 } } }, triggerType: 'One Time', channel } });
    expect(trade).toMatchObject({ subscriptionTypeConfig: { type: 'Large Trade', config: { params: { min_usd: 5000 } } }, triggerType: 'One Time' });
    await expect(
      createMarketAlert({ ctx, input: { marketId, subscriptionTypeConfig: { type: 'Volume Spike', config: { params: { multiple: 1.2 } } }, channel } }),
    ).rejects.toMatchObject({ kind: 'validation', detail: { issues: [expect.objectContaining({ path: ['subscriptionTypeConfig', 'config', 'params', 'multiple'], code: 'too_small', bound: 1.5 })] } });
    await expect(createMarketAlert({ ctx, input: { marketId, type: 'Crossing Up', thresholdPercent: 150, channel } })).rejects.toMatchObject({
      detail: { issues: [expect.objectContaining({ path: ['subscriptionTypeConfig', 'config', 'params', 'threshold_percent'], code: 'too_big' })] },
    });
  });
});

import { eq } from 'drizzle-orm';
import type { Update } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogMarkets } from '../../src/db/schema/index.js';
import { FLOW_CANCELLED, NOT_YOUR_FLOW } from '../../src/bots/commands/alert-flow.js';
import { createDiscordBot, EPHEMERAL, type RawInteraction } from '../../src/bots/discord/index.js';
import { createTelegramBot } from '../../src/bots/telegram/index.js';
import { createLogger } from '../../src/logger.js';
import { findOrCreateChatAccount } from '../../src/services/accounts/index.js';
import { listSubscriptions } from '../../src/services/subscriptions/index.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { startFakeBotApi, type FakeBotApi } from './fake-bot-api.js';
import { onlyCallback, startFakeDiscordApi, type FakeDiscordApi } from './fake-discord-api.js';

// The guided alert, walked as a person taps it: /search → Alert → condition → preset →
// confirmation → Save, on both bots, without typing an id. Each step's text and buttons are
// kept in golden files beside this test (golden/flow-*.txt) for a reviewer to read.

const TOKEN = '123456:TEST-token';
const APP = '111222333';
const logger = createLogger('silent');
let env: TestEnv;
let tg: FakeBotApi;
let dc: FakeDiscordApi;
let event: SeededEvent;
let updateId = 1;
let nextId = 1;

beforeAll(async () => {
  env = await createTestEnv();
  tg = await startFakeBotApi(TOKEN);
  dc = await startFakeDiscordApi(APP);
  event = await seedEvent(env.database, { title: 'Zorblax mayor race', markets: 2 });
  // A price the presets are picked around: 42 % → 45, 50, 55 for a rise.
  await env.database.db.update(catalogMarkets).set({ outcomePrices: [0.42, 0.58], slug: 'zorblax-wins' }).where(eq(catalogMarkets.id, event.markets[0]!.id));
});
afterAll(async () => {
  // Nothing the flow sent was refused as the platforms would refuse it (the strict fakes).
  expect(tg.refused).toEqual([]);
  expect(dc.refused).toEqual([]);
  await tg?.close();
  await dc?.close();
  await env?.close();
});

interface Button {
  label: string;
  data: string;
}
interface Shown {
  text: string;
  buttons: Button[][];
}

/** A step as a reviewer reads it: the text, then each row of buttons; ids made stable. */
function render(step: string, shown: Shown): string {
  const stable = (s: string) =>
    s
      .replaceAll(event.markets[0]!.id, '<market>')
      .replaceAll(event.markets[1]!.id, '<market 2>')
      .replaceAll(event.id, '<event>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<alert>');
  const rows = shown.buttons.map((row) => row.map((b) => `[${b.label}](${b.data})`).join(' '));
  return stable([`## ${step}`, shown.text, ...rows, ''].join('\n'));
}

const find = (shown: Shown, label: string): Button => {
  const b = shown.buttons.flat().find((x) => x.label === label);
  if (!b) throw new Error(`no button "${label}" in ${JSON.stringify(shown.buttons)}`);
  return b;
};

async function alertsOf(kind: 'telegram' | 'discord', userId: string) {
  const account = await findOrCreateChatAccount(env, { kind, userId });
  const ctx = { database: env.database, config: env.config, logger, caller: { kind: 'system' as const }, account };
  return listSubscriptions({ ctx, input: {} });
}

describe('the guided alert on Telegram', () => {
  const user = (id: number) => ({ id, is_bot: false, first_name: `User ${id}` });
  const chat = (id: number) => (id < 0 ? { id, type: 'group' as const, title: 'Group' } : { id, type: 'private' as const, first_name: 'U' });
  const command = (from: number, text: string, chatId = from) => ({
    update_id: updateId++,
    message: { message_id: updateId, date: 1, chat: chat(chatId), from: user(from), text, entities: [{ type: 'bot_command' as const, offset: 0, length: text.split(' ')[0]!.length }] },
  });
  const tap = (from: number, data: string, messageId: number, chatId = from) => ({
    update_id: updateId++,
    callback_query: { id: `cb-${updateId}`, from: user(from), chat_instance: 'ci', data, message: { message_id: messageId, date: 1, chat: chat(chatId), text: 'x' } },
  });
  const keyboard = (body: Record<string, any>): Button[][] =>
    (body.reply_markup?.inline_keyboard ?? []).map((row: { text: string; callback_data: string }[]) => row.map((b) => ({ label: b.text, data: b.callback_data })));
  const lastSent = (): Shown & { messageId: number } => {
    const body = tg.callsTo('sendMessage').at(-1)!.body;
    return { text: body.text, buttons: keyboard(body), messageId: tg.callsTo('sendMessage').length };
  };
  const lastEdit = (): Shown & { body: Record<string, any> } => {
    const body = tg.callsTo('editMessageText').at(-1)!.body;
    return { text: body.text, buttons: keyboard(body), body };
  };

  async function bot() {
    const b = createTelegramBot({ token: TOKEN, apiRoot: tg.url, deps: { database: env.database, config: env.config, logger } });
    await b.init();
    return b;
  }

  /** /search → Alert 1 → Rises above → 45%: the confirmation, as the user sees it. */
  async function upToConfirmation(from: number, chatId = from, golden?: string[]) {
    const b = await bot();
    await b.handleUpdate(command(from, '/search zorblax mayor', chatId));
    const results = lastSent();
    golden?.push(render('/search zorblax mayor', results));
    await b.handleUpdate(tap(from, find(results, 'Alert 1').data, results.messageId, chatId));
    const condition = lastSent();
    golden?.push(render('tap Alert 1 (a new message)', condition));
    await b.handleUpdate(tap(from, find(condition, 'Rises above').data, condition.messageId, chatId));
    const threshold = lastEdit();
    expect(threshold.body.message_id).toBe(condition.messageId);
    golden?.push(render('tap Rises above (edits that message)', threshold));
    await b.handleUpdate(tap(from, find(threshold, '45%').data, condition.messageId, chatId));
    const confirm = lastEdit();
    golden?.push(render('tap 45% (edits it)', confirm));
    return { b, confirm, messageId: condition.messageId, results };
  }

  it('walks /start → /search → Alert → condition → preset → confirmation → Save without typing an id', async () => {
    const golden: string[] = [];
    const b = await bot();
    await b.handleUpdate(command(7101, '/start'));
    expect(lastSent().text).toMatch(/^Welcome to Oddswatch/);
    const { confirm, messageId } = await upToConfirmation(7101, 7101, golden);
    expect(confirm.text).toBe(
      [
        'New alert (3/3): check and save',
        'Market: Zorblax mayor race: outcome 1?',
        'Outcome: Yes, 42% now',
        'Alert when: Yes rises above 45%',
        'Delivered to: this Telegram chat',
        'Repeats: at most once every 30m',
      ].join('\n'),
    );
    await b.handleUpdate(tap(7101, find(confirm, 'Save').data, messageId));
    const saved = lastEdit();
    golden.push(render('tap Save (edits it)', saved));
    expect(saved.text).toBe('Alert saved: Yes rises above 45% on "Zorblax mayor race: outcome 1?". Delivered to this Telegram chat, at most once every 30m.');
    expect(saved.buttons.flat().map((x) => x.label)).toEqual(['Pause', 'Delete']);
    const [alert, ...more] = await alertsOf('telegram', '7101');
    expect(more).toEqual([]);
    expect(alert).toMatchObject({
      marketId: event.markets[0]!.id,
      rule: { type: 'Crossing Up', params: { thresholdPercent: 45 } },
      triggerType: 'Recurring',
      channels: [{ type: 'Telegram', settings: { telegramChatId: 7101 } }],
    });
    await expect(golden.join('\n')).toMatchFileSnapshot('golden/flow-telegram.txt');
  });

  it('"Only once" on the confirmation changes the repeat before Save', async () => {
    const { b, confirm, messageId } = await upToConfirmation(7102);
    await b.handleUpdate(tap(7102, find(confirm, 'Only once').data, messageId));
    const once = lastEdit();
    expect(once.text).toContain('Repeats: only once');
    await b.handleUpdate(tap(7102, find(once, 'Save').data, messageId));
    expect((await alertsOf('telegram', '7102')).map((s) => s.triggerType)).toEqual(['One Time']);
  });

  it('"Type a number": the message asks for a reply, and the typed number leads to the confirmation', async () => {
    const b = await bot();
    await b.handleUpdate(command(7107, '/search zorblax mayor'));
    const results = lastSent();
    await b.handleUpdate(tap(7107, find(results, 'Alert 1').data, results.messageId));
    const condition = lastSent();
    await b.handleUpdate(tap(7107, find(condition, 'Falls below').data, condition.messageId));
    await b.handleUpdate(tap(7107, find(lastEdit(), 'Type a number').data, condition.messageId));
    const prompt = lastEdit();
    expect(prompt.text).toMatch(/^New alert \(2\/3\): alert when Yes falls below what price\?\n.*\nYes is at 42% now\.\nReply to this message with a number between 0 and 100, like 62\.5\.$/);
    expect(prompt.buttons.flat().map((x) => x.label)).toEqual(['Back', 'Cancel']);
    // The user replies to that message: Telegram sends it back with its buttons.
    const replyTo = (text: string): Update => ({
      update_id: updateId++,
      message: {
        message_id: 9000 + updateId,
        date: 1,
        chat: chat(7107),
        from: user(7107),
        text,
        reply_to_message: {
          message_id: condition.messageId,
          date: 1,
          chat: chat(7107),
          from: { id: 42, is_bot: true, first_name: 'Oddswatch' },
          text: prompt.text,
          reply_markup: prompt.body.reply_markup,
        },
      },
    }) as Update;
    await b.handleUpdate(replyTo('37,5'));
    expect(lastSent().text).toBe('37,5 is not a number: write it with digits and a dot, like 60 or 60.5.');
    await b.handleUpdate(replyTo('37.5'));
    const confirm = lastEdit();
    expect(confirm.body.message_id).toBe(condition.messageId);
    expect(confirm.text).toContain('Alert when: Yes falls below 37.5%');
    await b.handleUpdate(tap(7107, find(confirm, 'Save').data, condition.messageId));
    expect(await alertsOf('telegram', '7107')).toMatchObject([{ rule: { type: 'Crossing Down', params: { thresholdPercent: 37.5 } } }]);
  });

  it('"Big trade": amounts to pick or type, then a Large Trade rule on the market', async () => {
    const b = await bot();
    await b.handleUpdate(command(7109, '/search zorblax mayor'));
    const results = lastSent();
    await b.handleUpdate(tap(7109, find(results, 'Alert 1').data, results.messageId));
    const condition = lastSent();
    await b.handleUpdate(tap(7109, find(condition, 'Big trade').data, condition.messageId));
    const amounts = lastEdit();
    expect(render('tap Big trade', amounts)).toBe(
      [
        '## tap Big trade',
        'New alert (2/3): alert when one trade on this market is worth at least how much?',
        'Zorblax mayor race: outcome 1?',
        'Yes is at 42% now.',
        '[$10k](flow:k:<market>:trade:10000:30m:7109) [$25k](flow:k:<market>:trade:25000:30m:7109) [$100k](flow:k:<market>:trade:100000:30m:7109)',
        '[Type an amount](flow:n:<market>:trade:7109)',
        '[Back](flow:c:<market>:7109) [Cancel](flow:x:<market>:7109)',
        '',
      ].join('\n'),
    );
    await b.handleUpdate(tap(7109, find(amounts, '$25k').data, condition.messageId));
    expect(lastEdit().text).toContain('Alert when: it trades $25,000 or more at once');

    // Typed instead: the amount is read as /alert reads it (25k, 25,000, $1.5m).
    await b.handleUpdate(tap(7109, find(amounts, 'Type an amount').data, condition.messageId));
    const prompt = lastEdit();
    expect(prompt.text).toMatch(/\nReply to this message with a dollar amount, like 25000 or 25k\.$/);
    const replyTo = (text: string): Update => ({
      update_id: updateId++,
      message: {
        message_id: 9500 + updateId,
        date: 1,
        chat: chat(7109),
        from: user(7109),
        text,
        reply_to_message: { message_id: condition.messageId, date: 1, chat: chat(7109), from: { id: 42, is_bot: true, first_name: 'Oddswatch' }, text: prompt.text, reply_markup: prompt.body.reply_markup },
      },
    }) as Update;
    await b.handleUpdate(replyTo('lots'));
    expect(lastSent().text).toBe('lots is not a dollar amount: write it like 25000, 25k or 1.5m.');
    await b.handleUpdate(replyTo('$40k'));
    const confirm = lastEdit();
    expect(confirm.text).toContain('Alert when: it trades $40,000 or more at once');
    await b.handleUpdate(tap(7109, find(confirm, 'Only once').data, condition.messageId));
    await b.handleUpdate(tap(7109, find(lastEdit(), 'Save').data, condition.messageId));
    expect(lastEdit().text).toBe(
      'Alert saved: "Zorblax mayor race: outcome 1?" trades $40,000 or more at once. Delivered to this Telegram chat, only once.',
    );
    expect(await alertsOf('telegram', '7109')).toMatchObject([
      { marketId: event.markets[0]!.id, subscriptionTypeConfig: { type: 'Large Trade', config: { params: { min_usd: 40000 } } }, triggerType: 'One Time' },
    ]);
  });

  it('a flow button naming no condition of ours (constructor) is a stale button, not a failure', async () => {
    const b = await bot();
    await b.handleUpdate(tap(7110, `flow:t:${event.markets[0]!.id}:constructor:7110`, 1));
    expect(tg.callsTo('answerCallbackQuery').at(-1)!.body).toMatchObject({ text: 'This button no longer works: search again and tap Alert.', show_alert: true });
  });

  it('Cancel leaves nothing: the message says so and loses its buttons', async () => {
    const { b, confirm, messageId } = await upToConfirmation(7103);
    await b.handleUpdate(tap(7103, find(confirm, 'Cancel').data, messageId));
    const cancelled = lastEdit();
    expect(cancelled).toMatchObject({ text: FLOW_CANCELLED, buttons: [] });
    expect(cancelled.body.reply_markup).toBeUndefined();
    expect(await alertsOf('telegram', '7103')).toEqual([]);
  });

  it("another member's tap in a group is answered privately and changes nothing", async () => {
    const { b, confirm, messageId, results } = await upToConfirmation(7104, -7100);
    const edits = tg.callsTo('editMessageText').length;
    const sent = tg.callsTo('sendMessage').length;
    await b.handleUpdate(tap(7105, find(confirm, 'Save').data, messageId, -7100));
    expect(tg.callsTo('answerCallbackQuery').at(-1)!.body).toMatchObject({ text: NOT_YOUR_FLOW, show_alert: true });
    expect(tg.callsTo('editMessageText')).toHaveLength(edits);
    expect(tg.callsTo('sendMessage')).toHaveLength(sent);
    expect(await alertsOf('telegram', '7104')).toEqual([]);
    expect(await alertsOf('telegram', '7105')).toEqual([]);

    // The search results are the group's: their Alert starts a flow of the member who taps it.
    await b.handleUpdate(tap(7105, find(results, 'Alert 1').data, results.messageId, -7100));
    const own = lastSent();
    expect(own.text).toMatch(/^New alert \(1\/3\)/);
    expect(find(own, 'Rises above').data).toMatch(/:7105$/);
  });

  it('search results page with Next and Previous, editing the message in place', async () => {
    for (let i = 1; i <= 5; i++) await seedEvent(env.database, { title: `Quasar launch ${i}`, markets: 1, volume24hr: 100 - i });
    const b = await bot();
    await b.handleUpdate(command(7108, '/search quasar launch'));
    const first = lastSent();
    expect(first.text.match(/^[A-D]\. Quasar launch \d/gm)).toHaveLength(4);
    expect(first.text).toMatch(/\n\nPage 1$/);
    expect(first.buttons.at(-1)!.map((x) => x.label)).toEqual(['Next']);
    expect(find(first, 'Next').data).toBe('page:search:2:quasar:launch');
    await b.handleUpdate(tap(7108, find(first, 'Next').data, first.messageId));
    const second = lastEdit();
    expect(second.body.message_id).toBe(first.messageId);
    expect(second.text).toMatch(/^A\. Quasar launch 5 \(event \d+\)\n   1\. .*\n\nPage 2$/);
    expect(second.buttons.map((r) => r.map((x) => x.label))).toEqual([['Watch A', 'Alert 1'], ['Previous']]);
    await b.handleUpdate(tap(7108, find(second, 'Previous').data, first.messageId));
    expect(lastEdit().text).toBe(first.text);
  });

  it('the typed shortcut takes a venue link or a slug as well as an id', async () => {
    const b = await bot();
    await b.handleUpdate(command(7106, `/alert https://polymarket.com/event/${event.slug}/zorblax-wins up 60`));
    expect(lastSent().text).toMatch(/^Alert created:\n.*Crossing Up 60% on "Zorblax mayor race: outcome 1\?"/);
    await b.handleUpdate(command(7106, '/alert zorblax-wins down 30 once'));
    expect(lastSent().text).toMatch(/^Alert created:\n.*Crossing Down 30% on "Zorblax mayor race: outcome 1\?", once/);
    // An event link names a market only when the event has one: this one has two.
    await b.handleUpdate(command(7106, `/alert https://polymarket.com/event/${event.slug} up 60`));
    expect(lastSent().text).toMatch(/^That event has 2 markets: search for it and tap Alert under one/);
    expect((await alertsOf('telegram', '7106')).map((s) => s.marketId)).toEqual([event.markets[0]!.id, event.markets[0]!.id]);
  });
});

describe('the guided alert on Discord', () => {
  const base = (userId: string, type: number, guild: string | undefined, channel: string): RawInteraction => {
    const id = String(nextId++);
    const who = guild ? { guild_id: guild, member: { user: { id: userId } } } : { user: { id: userId } };
    return { id, token: `ftoken${id}`, type, application_id: APP, channel_id: channel, ...who };
  };
  const bot = () => createDiscordBot({ token: 'discord-bot-token', applicationId: APP, apiUrl: dc.url, deps: { database: env.database, config: env.config, logger } });
  const shownIn = (body: any): Shown => ({
    text: body.data.content,
    buttons: (body.data.components ?? []).map((row: { components: { label: string; custom_id: string }[] }) => row.components.map((b) => ({ label: b.label, data: b.custom_id }))),
  });

  async function click(b: ReturnType<typeof bot>, userId: string, button: Button, guild: string | undefined, channel: string) {
    const i = { ...base(userId, 3, guild, channel), data: { custom_id: button.data } };
    await b.handleInteraction(i);
    return onlyCallback(dc, i);
  }

  async function upToConfirmation(userId: string, guild: string | undefined, channel: string, golden?: string[]) {
    const b = bot();
    const search = { ...base(userId, 2, guild, channel), data: { name: 'search', options: [{ name: 'query', type: 3, value: 'zorblax mayor' }] } };
    await b.handleInteraction(search);
    const results = shownIn(onlyCallback(dc, search));
    golden?.push(render('/search query:zorblax mayor', results));
    const start = await click(b, userId, find(results, 'Alert 1'), guild, channel);
    expect(start).toMatchObject({ type: 4, data: { flags: EPHEMERAL } }); // the flow is the caller's own: a private message
    golden?.push(render('click Alert 1 (a new private message)', shownIn(start)));
    const threshold = await click(b, userId, find(shownIn(start), 'Rises above'), guild, channel);
    expect(threshold.type).toBe(7); // UPDATE_MESSAGE: the clicked message changes
    golden?.push(render('click Rises above (updates it)', shownIn(threshold)));
    const confirm = await click(b, userId, find(shownIn(threshold), '45%'), guild, channel);
    expect(confirm.type).toBe(7);
    golden?.push(render('click 45% (updates it)', shownIn(confirm)));
    return { b, confirm: shownIn(confirm) };
  }

  it('walks /search → Alert → condition → preset → confirmation → Save in a server channel, delivered to its webhook', async () => {
    const golden: string[] = [];
    const { b, confirm } = await upToConfirmation('8101', 'g1', 'flow-chan', golden);
    expect(confirm.text).toContain('Delivered to: this Discord channel');
    const saved = await click(b, '8101', find(confirm, 'Save'), 'g1', 'flow-chan');
    golden.push(render('click Save (updates it)', shownIn(saved)));
    expect(saved.type).toBe(7);
    expect(saved.data.content).toBe('Alert saved: Yes rises above 45% on "Zorblax mayor race: outcome 1?". Delivered to this Discord channel, at most once every 30m.');
    const [alert] = await alertsOf('discord', '8101');
    expect(alert).toMatchObject({ marketId: event.markets[0]!.id, rule: { type: 'Crossing Up', params: { thresholdPercent: 45 } } });
    expect(alert!.channels).toEqual([{ type: 'Discord', settings: { discordWebhookUrl: expect.stringContaining('/webhooks/') } }]);
    await expect(golden.join('\n')).toMatchFileSnapshot('golden/flow-discord.txt');
  });

  it('"Type a number" opens a modal whose custom_id carries the draft; its submission updates the message', async () => {
    const b = bot();
    const search = { ...base('8105', 2, undefined, 'dm-8105'), data: { name: 'search', options: [{ name: 'query', type: 3, value: 'zorblax mayor' }] } };
    await b.handleInteraction(search);
    const start = await click(b, '8105', find(shownIn(onlyCallback(dc, search)), 'Alert 1'), undefined, 'dm-8105');
    const threshold = await click(b, '8105', find(shownIn(start), 'Rises above'), undefined, 'dm-8105');
    const modal = await click(b, '8105', find(shownIn(threshold), 'Type a number'), undefined, 'dm-8105');
    expect(modal).toEqual({
      type: 9,
      data: {
        custom_id: `flow:b:${event.markets[0]!.id}:up:8105`,
        title: 'New alert: the price',
        components: [{ type: 1, components: [expect.objectContaining({ type: 4, custom_id: 'number', label: 'Yes rises above what price?', required: true })] }],
      },
    });
    const submit = (value: string) => ({ ...base('8105', 5, undefined, 'dm-8105'), data: { custom_id: modal.data.custom_id, components: [{ type: 1, components: [{ type: 4, custom_id: 'number', value }] }] } });
    const wrong = submit('150');
    await b.handleInteraction(wrong);
    expect(onlyCallback(dc, wrong)).toEqual({ type: 4, data: { content: '150 is not a percentage between 0 and 100.', flags: EPHEMERAL } });
    const right = submit('62.5');
    await b.handleInteraction(right);
    const confirm = onlyCallback(dc, right);
    expect(confirm.type).toBe(7);
    expect(confirm.data.content).toContain('Alert when: Yes rises above 62.5%');
    expect(confirm.data.content).toContain('Delivered to: your Oddswatch inbox (/inbox)');
  });

  it('"Closing soon": the four allowed hours as buttons, then a Closing Soon rule', async () => {
    const b = bot();
    const search = { ...base('8106', 2, undefined, 'dm-8106'), data: { name: 'search', options: [{ name: 'query', type: 3, value: 'zorblax mayor' }] } };
    await b.handleInteraction(search);
    const start = await click(b, '8106', find(shownIn(onlyCallback(dc, search)), 'Alert 1'), undefined, 'dm-8106');
    const hours = shownIn(await click(b, '8106', find(shownIn(start), 'Closing soon'), undefined, 'dm-8106'));
    expect(hours.text).toMatch(/^New alert \(2\/3\): alert when this market is how close to its end\?\n/);
    // Only the allowed values, so nothing to type.
    expect(hours.buttons.map((r) => r.map((x) => x.label))).toEqual([['1h before', '6h before', '24h before', '72h before'], ['Back', 'Cancel']]);
    const confirm = shownIn(await click(b, '8106', find(hours, '24h before'), undefined, 'dm-8106'));
    expect(confirm.text).toContain('Alert when: it closes within 24h');
    const saved = await click(b, '8106', find(confirm, 'Save'), undefined, 'dm-8106');
    expect(saved.data.content).toBe('Alert saved: "Zorblax mayor race: outcome 1?" closes within 24h. Delivered to your Oddswatch inbox (/inbox), at most once every 30m.');
    expect(await alertsOf('discord', '8106')).toMatchObject([{ subscriptionTypeConfig: { type: 'Closing Soon', config: { params: { hours_before: 24 } } } }]);
  });

  it('"Big trade" → "Type an amount" opens a modal for dollars; the typed amount leads to the confirmation', async () => {
    const b = bot();
    const search = { ...base('8107', 2, undefined, 'dm-8107'), data: { name: 'search', options: [{ name: 'query', type: 3, value: 'zorblax mayor' }] } };
    await b.handleInteraction(search);
    const start = await click(b, '8107', find(shownIn(onlyCallback(dc, search)), 'Alert 1'), undefined, 'dm-8107');
    const amounts = await click(b, '8107', find(shownIn(start), 'Big trade'), undefined, 'dm-8107');
    const modal = await click(b, '8107', find(shownIn(amounts), 'Type an amount'), undefined, 'dm-8107');
    expect(modal).toEqual({
      type: 9,
      data: {
        custom_id: `flow:b:${event.markets[0]!.id}:trade:8107`,
        title: 'New alert: the trade size',
        components: [{ type: 1, components: [expect.objectContaining({ type: 4, custom_id: 'number', label: 'One trade worth at least, in dollars', placeholder: '25k' })] }],
      },
    });
    const submit = { ...base('8107', 5, undefined, 'dm-8107'), data: { custom_id: modal.data.custom_id, components: [{ type: 1, components: [{ type: 4, custom_id: 'number', value: '75,000' }] }] } };
    await b.handleInteraction(submit);
    expect(onlyCallback(dc, submit).data.content).toContain('Alert when: it trades $75,000 or more at once');
  });

  it('Cancel leaves nothing and removes the buttons', async () => {
    const { b, confirm } = await upToConfirmation('8102', undefined, 'dm-8102');
    const cancelled = await click(b, '8102', find(confirm, 'Cancel'), undefined, 'dm-8102');
    expect(cancelled).toEqual({ type: 7, data: { content: FLOW_CANCELLED, components: [] } });
    expect(await alertsOf('discord', '8102')).toEqual([]);
  });

  it("another user's click is answered privately and changes nothing", async () => {
    const { b, confirm } = await upToConfirmation('8103', 'g1', 'flow-chan');
    const intruder = await click(b, '8104', find(confirm, 'Save'), 'g1', 'flow-chan');
    expect(intruder).toEqual({ type: 4, data: { content: NOT_YOUR_FLOW, flags: EPHEMERAL } });
    expect(await alertsOf('discord', '8103')).toEqual([]);
    expect(await alertsOf('discord', '8104')).toEqual([]);
  });
});

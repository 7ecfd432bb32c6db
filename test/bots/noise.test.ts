import type { Update } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiscordBot, type RawInteraction } from '../../src/bots/discord/index.js';
import { createTelegramBot } from '../../src/bots/telegram/index.js';
import { PRICE_RULE_TYPES, rearmApplies, TRIGGER_TYPES } from '../../src/domain/enums.js';
import { effectiveBand } from '../../src/engine/rules.js';
import { createLogger } from '../../src/logger.js';
import { findOrCreateChatAccount, getAccountPreferences, putAccountPreferences } from '../../src/services/accounts/index.js';
import type { ServiceContext } from '../../src/services/context.js';
import { getPreferences, snoozeSubscription } from '../../src/services/subscriptions/index.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { startFakeBotApi, type FakeBotApi } from './fake-bot-api.js';
import { onlyCallback, startFakeDiscordApi, type FakeDiscordApi } from './fake-discord-api.js';

// Noise control from chat (#19 item 7): delivery mode, re-arm band, unsnooze, quiet hours and the
// time zone, typed and tapped, on both platforms against the strict fakes; /alerts shows them.

const TOKEN = '123456:NOISE-token';
const APP = '444555666';
const logger = createLogger('silent');
let env: TestEnv;
let tgApi: FakeBotApi;
let dcApi: FakeDiscordApi;
let event: SeededEvent;
let updateId = 1;
let interactionId = 1;

// A snooze end in January, when Paris is UTC+1: the list must say 14:00 there, not 13:00 UTC.
const SNOOZE_END = '2030-01-15T13:00:00.000Z';

async function serviceCtx(kind: 'telegram' | 'discord', userId: string): Promise<ServiceContext> {
  const account = await findOrCreateChatAccount(env, { kind, userId });
  return { database: env.database, config: env.config, logger, account } as ServiceContext;
}

beforeAll(async () => {
  env = await createTestEnv();
  tgApi = await startFakeBotApi(TOKEN);
  dcApi = await startFakeDiscordApi(APP);
  event = await seedEvent(env.database, { title: 'Quiet night markets', markets: 3 });
});
afterAll(async () => {
  await tgApi?.close();
  await dcApi?.close();
  await env?.close();
});

describe('where a re-arm band applies', () => {
  it('the bots offer it exactly where the engine applies one', () => {
    for (const type of PRICE_RULE_TYPES) {
      for (const triggerType of TRIGGER_TYPES) {
        const engine = effectiveBand({ type, rearmBand: 0.02, oneTime: triggerType === 'One Time' }) > 0;
        expect(rearmApplies(type, triggerType), `${type}, ${triggerType}`).toBe(engine);
      }
    }
  });
});

describe(`noise control in Telegram (${engineName})`, () => {
  const bot = () => createTelegramBot({ token: TOKEN, apiRoot: tgApi.url, deps: { database: env.database, config: env.config, logger }, botInfo: { id: 1, is_bot: true, first_name: 'Odds', username: 'OddswatchTestBot', can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false, can_connect_to_business: false, has_main_web_app: false } as never });
  const command = (user: number, text: string): Update =>
    ({
      update_id: updateId++,
      message: { message_id: updateId, date: 0, chat: { id: user, type: 'private', first_name: 'U' }, from: { id: user, is_bot: false, first_name: 'U' }, text, entities: [{ type: 'bot_command', offset: 0, length: text.split(' ')[0]!.length }] },
    }) as Update;
  const tap = (user: number, data: string, messageId = 900): Update =>
    ({
      update_id: updateId++,
      callback_query: { id: `cb-${updateId}`, from: { id: user, is_bot: false, first_name: 'U' }, chat_instance: 'ci', data, message: { message_id: messageId, date: 0, chat: { id: user, type: 'private', first_name: 'U' }, text: 'x' } },
    }) as Update;
  const lastSent = () => tgApi.callsTo('sendMessage').at(-1)!.body;
  const lastEdit = () => tgApi.callsTo('editMessageText').at(-1)!.body;
  const labels = (body: any): string[][] => (body.reply_markup?.inline_keyboard ?? []).map((row: any[]) => row.map((b) => b.text));
  const data = (body: any, label: string): string => body.reply_markup.inline_keyboard.flat().find((b: any) => b.text === label).callback_data;

  async function newAlert(user: number, market = 0): Promise<string> {
    const b = bot();
    await b.handleUpdate(command(user, `/alert ${event.markets[market]!.id} up 60 every 60m`));
    return lastSent().reply_markup.inline_keyboard[0][0].callback_data.slice('pause:'.length);
  }

  it('/digest and /rearm set one preference each and answer with the settings card and its buttons', async () => {
    const user = 9101;
    const id = await newAlert(user);
    const ctx = await serviceCtx('telegram', String(user));
    const b = bot();

    await b.handleUpdate(command(user, `/digest ${id} hourly`));
    let card = lastSent();
    expect(card.text).toMatch(/^Hourly digest ✓: firings are collected and sent as one message per chat or webhook\. Your inbox still gets each one at once\.\n"Quiet night markets: outcome 1\?" rises above 60% · every 60m · active · not fired yet\n/);
    expect(card.text).toContain('Delivery: one digest an hour, at the top of the hour');
    expect(card.text).toContain('Re-arm band: none (it may fire on every crossing)');
    expect(card.text).toContain('Not snoozed');
    expect(labels(card)).toEqual([
      ['At once', '✓ Hourly digest', 'Daily digest'],
      ['✓ No re-arm band', 'Re-arm 1 pt', 'Re-arm 2 pts', 'Re-arm 5 pts'],
      ['Snooze 1 h', 'Snooze 8 h', 'Snooze 24 h'],
    ]);
    expect(await getPreferences({ ctx, input: { subscriptionId: id } })).toEqual({ snoozedUntil: null, delivery: 'hourly', rearmPoints: 0 });

    await b.handleUpdate(command(user, `/rearm ${id} 2.5`));
    card = lastSent();
    expect(card.text).toMatch(/^Re-arm band 2\.5 points ✓\n/);
    expect(card.text).toContain('Re-arm band: 2.5 points (after firing, the price must go back 2.5 points past the threshold before it can fire again)');
    // The delivery mode set before stays: each command changes its own preference only.
    expect(await getPreferences({ ctx, input: { subscriptionId: id } })).toEqual({ snoozedUntil: null, delivery: 'hourly', rearmPoints: 2.5 });

    // Wrong words are named, with the fix, and change nothing.
    await b.handleUpdate(command(user, `/rearm ${id} 60`));
    expect(lastSent().text).toBe('60 is not a number of points between 0 and 50.\nUsage: /rearm <alert id> <points>');
    await b.handleUpdate(command(user, `/digest ${id} weekly`));
    expect(lastSent().text).toBe('weekly is not a delivery mode: use instant, hourly or daily.\nUsage: /digest <alert id> <instant|hourly|daily>');
    expect(await getPreferences({ ctx, input: { subscriptionId: id } })).toEqual({ snoozedUntil: null, delivery: 'hourly', rearmPoints: 2.5 });

    // A rule the band means nothing to (a level rule) stores it, as REST does, but says so and offers no band buttons.
    await b.handleUpdate(command(user, `/alert ${event.markets[1]!.id} above 70`));
    const level = lastSent().reply_markup.inline_keyboard[0][0].callback_data.slice('pause:'.length);
    await b.handleUpdate(command(user, `/rearm ${level} 2`));
    card = lastSent();
    expect(card.text).toMatch(/^Re-arm band 2 points ✓, but this alert ignores it: re-arm bands apply to repeating alerts that rise above, fall below or cross a price\.\n/);
    expect(card.text).not.toContain('Re-arm band:');
    expect(labels(card)).toEqual([['✓ At once', 'Hourly digest', 'Daily digest'], ['Snooze 1 h', 'Snooze 8 h', 'Snooze 24 h']]);

    // Someone else's alert is not found, and stays as it was.
    await b.handleUpdate(command(9102, `/digest ${id} daily`));
    expect(lastSent().text).toBe("I can't find that alert (it may have been deleted). Send /alerts to see yours.");
    await b.handleUpdate(command(9102, `/unsnooze ${id}`));
    expect(lastSent().text).toBe("I can't find that alert (it may have been deleted). Send /alerts to see yours.");
    expect((await getPreferences({ ctx, input: { subscriptionId: id } })).delivery).toBe('hourly');
  });

  it("/alerts shows snoozed rules until when in the person's time zone, and non-default delivery and re-arm band", async () => {
    const user = 9103;
    const plain = await newAlert(user, 0);
    const noisy = await newAlert(user, 1);
    const ctx = await serviceCtx('telegram', String(user));
    await snoozeSubscription({ ctx, input: { subscriptionId: noisy, body: { until: SNOOZE_END } } });
    const b = bot();
    await b.handleUpdate(command(user, `/digest ${noisy} daily`));
    await b.handleUpdate(command(user, `/rearm ${noisy} 2`));

    await b.handleUpdate(command(user, '/alerts'));
    const inUtc = lastSent().text.split('\n');
    expect(inUtc).toContain('1. "Quiet night markets: outcome 2?" rises above 60% · every 60m · active · not fired yet · snoozed until 2030-01-15 13:00 UTC · daily digest · re-arm band 2 points');
    // Defaults add nothing: the line reads as it always did.
    expect(inUtc).toContain('2. "Quiet night markets: outcome 1?" rises above 60% · every 60m · active · not fired yet');

    await b.handleUpdate(command(user, '/timezone Europe/Paris'));
    expect(lastSent().text).toMatch(/^Time zone ✓: Europe\/Paris\. It is now \d{4}-\d\d-\d\d \d\d:\d\d Europe\/Paris\. Quiet hours, daily digests and the times I show you use it\.$/);
    await b.handleUpdate(command(user, '/alerts'));
    expect(lastSent().text.split('\n')[1]).toBe(
      '1. "Quiet night markets: outcome 2?" rises above 60% · every 60m · active · not fired yet · snoozed until 2030-01-15 14:00 Europe/Paris · daily digest · re-arm band 2 points',
    );
    expect(plain).not.toBe(noisy);
  });

  it("the buttons under an alert's detail change its settings and edit that message; Unsnooze ends the snooze", async () => {
    const user = 9104;
    const id = await newAlert(user);
    const ctx = await serviceCtx('telegram', String(user));
    await snoozeSubscription({ ctx, input: { subscriptionId: id, body: { until: SNOOZE_END } } });
    await putAccountPreferences({ ctx, input: { timezone: 'America/New_York' } });
    const b = bot();

    await b.handleUpdate(command(user, `/alerts ${id}`));
    const detail = lastSent();
    expect(detail.text).toBe(
      [
        `Alert ${id} has not fired yet.`,
        '',
        'Delivery: each firing is sent at once',
        'Re-arm band: none (it may fire on every crossing)',
        'Snoozed until 2030-01-15 08:00 America/New_York: its firings go to your inbox only',
      ].join('\n'),
    );
    expect(labels(detail)).toEqual([
      ['✓ At once', 'Hourly digest', 'Daily digest'],
      ['✓ No re-arm band', 'Re-arm 1 pt', 'Re-arm 2 pts', 'Re-arm 5 pts'],
      ['🔔 Unsnooze'],
    ]);
    for (const row of detail.reply_markup.inline_keyboard) for (const button of row) expect(Buffer.byteLength(button.callback_data)).toBeLessThanOrEqual(64);

    await b.handleUpdate(tap(user, data(detail, 'Daily digest')));
    let edited = lastEdit();
    expect(edited.message_id).toBe(900);
    expect(edited.text).toMatch(/^Daily digest ✓: /);
    expect(edited.text).toContain(`Delivery: one digest a day, at ${String(env.config.DIGEST_HOUR).padStart(2, '0')}:00 America/New_York`);
    expect(labels(edited)[0]).toEqual(['At once', 'Hourly digest', '✓ Daily digest']);

    await b.handleUpdate(tap(user, data(edited, 'Re-arm 5 pts')));
    edited = lastEdit();
    expect(edited.text).toMatch(/^Re-arm band 5 points ✓\n/);
    expect(labels(edited)[1]).toEqual(['No re-arm band', 'Re-arm 1 pt', 'Re-arm 2 pts', '✓ Re-arm 5 pts']);

    await b.handleUpdate(tap(user, data(edited, '🔔 Unsnooze')));
    edited = lastEdit();
    expect(edited.text).toMatch(/^Unsnoozed ✓: its next firing goes to every channel\.\n/);
    expect(edited.text).toContain('Not snoozed');
    expect(labels(edited)[2]).toEqual(['Snooze 1 h', 'Snooze 8 h', 'Snooze 24 h']);
    expect(await getPreferences({ ctx, input: { subscriptionId: id } })).toEqual({ snoozedUntil: null, delivery: 'daily', rearmPoints: 5 });

    // Snooze again from the card: the answer says until when in the person's zone, to them alone.
    await b.handleUpdate(tap(user, data(edited, 'Snooze 8 h')));
    const { snoozedUntil } = await getPreferences({ ctx, input: { subscriptionId: id } });
    // Swedish dates read YYYY-MM-DD HH:MM: the expected wall time, computed another way than the bot's.
    const local = new Date(snoozedUntil!).toLocaleString('sv-SE', { timeZone: 'America/New_York', dateStyle: 'short', timeStyle: 'short' });
    expect(tgApi.callsTo('answerCallbackQuery').at(-1)!.body).toMatchObject({
      text: `Snoozed alert ${id} until ${local} America/New_York: until then its alerts go to your inbox only.`,
      show_alert: true,
    });
    await b.handleUpdate(command(user, `/unsnooze ${id}`));

    // Another person's tap on these buttons changes nothing and is answered to them alone.
    const edits = tgApi.callsTo('editMessageText').length;
    await b.handleUpdate(tap(9105, `digest:${id}:instant`));
    expect(tgApi.callsTo('answerCallbackQuery').at(-1)!.body).toMatchObject({ text: expect.stringMatching(/can't find that alert/), show_alert: true });
    expect(tgApi.callsTo('editMessageText')).toHaveLength(edits);
    expect((await getPreferences({ ctx, input: { subscriptionId: id } })).delivery).toBe('daily');
  });

  it('/quiet sets, shows and turns off quiet hours, keeping the time zone and chosen channels; bad times are named', async () => {
    const user = 9106;
    const ctx = await serviceCtx('telegram', String(user));
    const b = bot();

    await b.handleUpdate(command(user, '/quiet'));
    expect(lastSent().text).toBe('No quiet hours: alerts are sent at any hour. Your time zone: UTC.\nSet them with /quiet 22:00 07:00 Europe/Paris.');

    await b.handleUpdate(command(user, '/quiet 22:00 07:00 Europe/Paris'));
    expect(lastSent().text).toBe(
      'Quiet hours ✓\nQuiet hours: 22:00 to 07:00 Europe/Paris, every day.\nIn that time Discord and Telegram alerts are held, then sent as one summary per chat or webhook when quiet hours end. Nothing is dropped.',
    );
    expect(await getAccountPreferences({ ctx })).toEqual({ timezone: 'Europe/Paris', quietHours: { start: '22:00', end: '07:00', channels: ['Discord', 'Telegram'] } });

    for (const [typed, answer] of [
      ['/quiet 25:00 07:00', '"25:00" is not a time: write it as HH:MM on a 24-hour clock, like 22:00 or 07:30.\nUsage: /quiet [from|off] [to] [time zone] [channels]'],
      ['/quiet 22:00 7', '"7" is not a time: write it as HH:MM on a 24-hour clock, like 22:00 or 07:30.\nUsage: /quiet [from|off] [to] [time zone] [channels]'],
      ['/quiet 22:00 22:00', 'Quiet hours must start and end at different times.\nUsage: /quiet [from|off] [to] [time zone] [channels]'],
      ['/quiet 23:00 06:00 Mars/Olympus', '"Mars/Olympus" is not a time zone I know: use a name like Europe/Paris, America/New_York or UTC.\nUsage: /quiet [from|off] [to] [time zone] [channels]'],
      ['/quiet 23:00', 'Give both times, like /quiet 22:00 07:00 Europe/Paris, or /quiet off.\nUsage: /quiet [from|off] [to] [time zone] [channels]'],
      ['/timezone Paris', '"Paris" is not a time zone I know: use a name like Europe/Paris, America/New_York or UTC.\nUsage: /timezone [time zone]'],
    ] as const) {
      await b.handleUpdate(command(user, typed));
      expect(lastSent().text, typed).toBe(answer);
    }
    // Nothing of the refused commands was stored.
    expect(await getAccountPreferences({ ctx })).toEqual({ timezone: 'Europe/Paris', quietHours: { start: '22:00', end: '07:00', channels: ['Discord', 'Telegram'] } });

    // Channels chosen over REST stay when chat changes the times; the zone stays when not given.
    await putAccountPreferences({ ctx, input: { timezone: 'Europe/Paris', quietHours: { start: '22:00', end: '07:00', channels: ['Telegram', 'Webhook'] } } });
    await b.handleUpdate(command(user, '/quiet 23:30 06:15'));
    expect(await getAccountPreferences({ ctx })).toEqual({ timezone: 'Europe/Paris', quietHours: { start: '23:30', end: '06:15', channels: ['Telegram', 'Webhook'] } });
    await b.handleUpdate(command(user, '/quiet'));
    expect(lastSent().text).toMatch(/^Quiet hours: 23:30 to 06:15 Europe\/Paris, every day\.\nIn that time Telegram and Webhook alerts are held/);

    await b.handleUpdate(command(user, '/quiet off'));
    expect(lastSent().text).toBe('Quiet hours off ✓: alerts are sent at any hour.');
    expect(await getAccountPreferences({ ctx })).toEqual({ timezone: 'Europe/Paris', quietHours: null });
    expect(tgApi.refused).toEqual([]);
  });

  it('/quiet takes the held channels as words; a wrong word is named and nothing changes', async () => {
    const user = 9110;
    const ctx = await serviceCtx('telegram', String(user));
    const b = bot();
    await b.handleUpdate(command(user, '/quiet 22:00 07:00 Europe/Paris telegram, webhooks'));
    expect(lastSent().text).toBe(
      'Quiet hours ✓\nQuiet hours: 22:00 to 07:00 Europe/Paris, every day.\nIn that time Telegram and Webhook alerts are held, then sent as one summary per chat or webhook when quiet hours end. Nothing is dropped.',
    );
    expect(await getAccountPreferences({ ctx })).toEqual({ timezone: 'Europe/Paris', quietHours: { start: '22:00', end: '07:00', channels: ['Telegram', 'Webhook'] } });
    // Without a time zone the first channel word is not read as one; the zone is kept.
    await b.handleUpdate(command(user, '/quiet 23:00 06:00 Discord in app'));
    expect(await getAccountPreferences({ ctx })).toEqual({ timezone: 'Europe/Paris', quietHours: { start: '23:00', end: '06:00', channels: ['Discord', 'In App'] } });
    await b.handleUpdate(command(user, '/quiet 21:00 06:00 Europe/Paris telegram email'));
    expect(lastSent().text).toBe('"email" is not a channel: use telegram, discord, webhook or inbox.\nUsage: /quiet [from|off] [to] [time zone] [channels]');
    expect(await getAccountPreferences({ ctx })).toEqual({ timezone: 'Europe/Paris', quietHours: { start: '23:00', end: '06:00', channels: ['Discord', 'In App'] } });
    // Without channel words the chosen ones stay.
    await b.handleUpdate(command(user, '/quiet 22:30 06:30'));
    expect(await getAccountPreferences({ ctx })).toEqual({ timezone: 'Europe/Paris', quietHours: { start: '22:30', end: '06:30', channels: ['Discord', 'In App'] } });
  });

  it('/snooze <alert> until a date and time reads it in the person\'s time zone; a past or unreadable time is refused', async () => {
    const user = 9111;
    const ctx = await serviceCtx('telegram', String(user));
    const id = await newAlert(user, 1);
    const b = bot();
    // UTC until a zone is set.
    await b.handleUpdate(command(user, `/snooze ${id} until 2030-01-15 13:00`));
    expect(lastSent().text).toBe(`Snoozed alert ${id} until 2030-01-15 13:00 UTC: until then its alerts go to your inbox only.`);
    expect((await getPreferences({ ctx, input: { subscriptionId: id } })).snoozedUntil).toBe(SNOOZE_END);
    await b.handleUpdate(command(user, '/timezone America/New_York'));
    // July: New York is UTC-4, so 09:00 there is 13:00 UTC.
    await b.handleUpdate(command(user, `/snooze ${id} until 2030-07-01 09:00`));
    expect(lastSent().text).toBe(`Snoozed alert ${id} until 2030-07-01 09:00 America/New_York: until then its alerts go to your inbox only.`);
    expect((await getPreferences({ ctx, input: { subscriptionId: id } })).snoozedUntil).toBe('2030-07-01T13:00:00.000Z');

    const usage = '\nUsage: /snooze <alert id> <1h|8h|24h|1w|until> [YYYY-MM-DD HH:MM]';
    for (const [text, answer] of [
      [`/snooze ${id} until 2020-01-01 09:00`, 'That time has passed: give a time to come.'],
      [`/snooze ${id} until tomorrow`, '"tomorrow" is not a date and time: write it as YYYY-MM-DD HH:MM in your time zone (America/New_York), like 2026-12-01 09:00.'],
      [`/snooze ${id} until 2030-02-30 09:00`, '"2030-02-30 09:00" is not a date and time: write it as YYYY-MM-DD HH:MM in your time zone (America/New_York), like 2026-12-01 09:00.'],
      [`/snooze ${id} until`, 'Give the time as YYYY-MM-DD HH:MM in your time zone (America/New_York), like 2026-12-01 09:00.'],
      [`/snooze ${id} 8h 2030-07-01 09:00`, 'A snooze of 8h takes nothing after it; to snooze until a time, write until before it.'],
    ] as const) {
      await b.handleUpdate(command(user, text));
      expect(lastSent().text, text).toBe(answer + usage);
    }
    expect((await getPreferences({ ctx, input: { subscriptionId: id } })).snoozedUntil).toBe('2030-07-01T13:00:00.000Z');
    expect(tgApi.refused).toEqual([]);
  });
});

describe(`noise control in Discord (${engineName})`, () => {
  const user = '9201';
  const bot = () => createDiscordBot({ token: 'discord-bot-token', applicationId: APP, apiUrl: dcApi.url, deps: { database: env.database, config: env.config, logger } });
  const base = (type: number) => {
    const id = `n${interactionId++}`;
    return { id, token: `ntoken${id}`, type, application_id: APP, channel_id: 'dm-9201', user: { id: user } };
  };
  const slash = (name: string, options: Record<string, string | number> = {}): RawInteraction => ({
    ...base(2),
    data: { name, options: Object.entries(options).map(([n, value]) => ({ name: n, type: typeof value === 'number' ? 10 : 3, value })) },
  });
  const click = (customId: string): RawInteraction => ({ ...base(3), data: { custom_id: customId } });
  const components = (d: any): { label: string; custom_id: string }[][] => (d.components ?? []).map((row: any) => row.components);
  const find = (d: any, label: string) => components(d).flat().find((b) => b.label === label)!;

  it('registers the noise commands with their options, bounds and choices', async () => {
    await bot().registerCommands();
    const put = dcApi.callsTo('PUT', new RegExp(`^/v10/applications/${APP}/commands$`)).at(-1)!;
    const byName = (name: string) => put.body.find((c: { name: string }) => c.name === name);
    expect(byName('digest').options.map((o: any) => [o.name, o.required, o.choices?.map((c: any) => c.value)])).toEqual([
      ['id', true, undefined],
      ['mode', true, ['instant', 'hourly', 'daily']],
    ]);
    expect(byName('rearm').options[1]).toMatchObject({ name: 'points', type: 10, min_value: 0, max_value: 50, required: true });
    expect(byName('quiet').options.map((o: any) => [o.name, o.required])).toEqual([
      ['start', false],
      ['end', false],
      ['timezone', false],
      ['channels', false],
    ]);
    expect(byName('snooze').options.map((o: any) => [o.name, o.required, o.choices?.map((c: any) => c.value)])).toEqual([
      ['id', true, undefined],
      ['for', true, ['1h', '8h', '24h', '1w', 'until']],
      ['time', false, undefined],
    ]);
    expect(byName('unsnooze').options.map((o: any) => [o.name, o.autocomplete])).toEqual([['id', true]]);
    expect(dcApi.refused).toEqual([]);
  });

  it('sets delivery, re-arm band and quiet hours with typed options, privately; buttons edit the card', async () => {
    const ctx = await serviceCtx('discord', user);
    const b = bot();
    const made = slash('alert', { market: event.markets[2]!.id, condition: 'cross 50' });
    await b.handleInteraction(made);
    const id = find(onlyCallback(dcApi, made).data, 'Pause').custom_id.slice('pause:'.length);

    const digest = slash('digest', { id, mode: 'daily' });
    await b.handleInteraction(digest);
    const answer = onlyCallback(dcApi, digest);
    expect(answer.type).toBe(4);
    expect(answer.data.flags & 64).toBe(64); // only the caller sees their alert's settings
    expect(answer.data.content).toMatch(/^Daily digest ✓: /);
    expect(components(answer.data).map((row) => row.map((c) => c.label))).toEqual([
      ['At once', 'Hourly digest', '✓ Daily digest'],
      ['✓ No re-arm band', 'Re-arm 1 pt', 'Re-arm 2 pts', 'Re-arm 5 pts'],
      ['Snooze 1 h', 'Snooze 8 h', 'Snooze 24 h'],
    ]);

    const rearm = slash('rearm', { id, points: 1.5 });
    await b.handleInteraction(rearm);
    expect(onlyCallback(dcApi, rearm).data.content).toMatch(/^Re-arm band 1\.5 points ✓\n/);
    expect(await getPreferences({ ctx, input: { subscriptionId: id } })).toEqual({ snoozedUntil: null, delivery: 'daily', rearmPoints: 1.5 });

    // Snooze from the card, then the card of /alerts <id> offers Unsnooze, whose tap edits it.
    const snooze = click(find(answer.data, 'Snooze 8 h').custom_id);
    await b.handleInteraction(snooze);
    expect(onlyCallback(dcApi, snooze).data.content).toMatch(new RegExp(`^Snoozed alert ${id} until `));
    const detail = slash('alerts', { id });
    await b.handleInteraction(detail);
    const unsnooze = click(find(onlyCallback(dcApi, detail).data, '🔔 Unsnooze').custom_id);
    await b.handleInteraction(unsnooze);
    const updated = onlyCallback(dcApi, unsnooze);
    expect(updated.type).toBe(7); // UPDATE_MESSAGE: the card it was tapped on
    expect(updated.data.content).toMatch(/^Unsnoozed ✓/);
    expect((await getPreferences({ ctx, input: { subscriptionId: id } })).snoozedUntil).toBeNull();

    const quiet = slash('quiet', { start: '21:30', end: '06:30', timezone: 'Asia/Tokyo' });
    await b.handleInteraction(quiet);
    expect(onlyCallback(dcApi, quiet).data.content).toBe(
      'Quiet hours ✓\nQuiet hours: 21:30 to 06:30 Asia/Tokyo, every day.\nIn that time Discord and Telegram alerts are held, then sent as one summary per chat or webhook when quiet hours end. Nothing is dropped.',
    );
    const wrong = slash('quiet', { start: '9pm', end: '06:30' });
    await b.handleInteraction(wrong);
    const refusal = onlyCallback(dcApi, wrong).data;
    expect(refusal.content).toBe('"9pm" is not a time: write it as HH:MM on a 24-hour clock, like 22:00 or 07:30.\nUsage: /quiet [start:…] [end:…] [timezone:…] [channels:…]');
    expect(refusal.flags & 64).toBe(64);
    const shown = slash('quiet');
    await b.handleInteraction(shown);
    expect(onlyCallback(dcApi, shown).data.content).toMatch(/^Quiet hours: 21:30 to 06:30 Asia\/Tokyo/);
    const held = slash('quiet', { start: '21:30', end: '06:30', channels: 'discord webhook' });
    await b.handleInteraction(held);
    expect(onlyCallback(dcApi, held).data.content).toMatch(/In that time Discord and Webhook alerts are held/);
    expect(await getAccountPreferences({ ctx })).toEqual({ timezone: 'Asia/Tokyo', quietHours: { start: '21:30', end: '06:30', channels: ['Discord', 'Webhook'] } });
    const badChannel = slash('quiet', { start: '21:30', end: '06:30', channels: 'sms' });
    await b.handleInteraction(badChannel);
    expect(onlyCallback(dcApi, badChannel).data.content).toBe('"sms" is not a channel: use telegram, discord, webhook or inbox.\nUsage: /quiet [start:…] [end:…] [timezone:…] [channels:…]');

    // Snooze until a time, read in Asia/Tokyo (UTC+9).
    const until = slash('snooze', { id, for: 'until', time: '2030-01-15 22:00' });
    await b.handleInteraction(until);
    expect(onlyCallback(dcApi, until).data.content).toBe(`Snoozed alert ${id} until 2030-01-15 22:00 Asia/Tokyo: until then its alerts go to your inbox only.`);
    expect((await getPreferences({ ctx, input: { subscriptionId: id } })).snoozedUntil).toBe(SNOOZE_END);
    const past = slash('snooze', { id, for: 'until', time: '2021-01-01 00:00' });
    await b.handleInteraction(past);
    expect(onlyCallback(dcApi, past).data.content).toMatch(/^That time has passed: give a time to come\./);
    const off = slash('quiet', { start: 'off' });
    await b.handleInteraction(off);
    expect(onlyCallback(dcApi, off).data.content).toBe('Quiet hours off ✓: alerts are sent at any hour.');
    expect(await getAccountPreferences({ ctx })).toEqual({ timezone: 'Asia/Tokyo', quietHours: null });
    expect(dcApi.refused).toEqual([]);
  });
});

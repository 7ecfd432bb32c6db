import { and, eq, sql } from 'drizzle-orm';
import type { Update } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runButton, runCommand, type BotReply, type ChatInfo } from '../../src/bots/commands/index.js';
import { createDiscordBot, type RawInteraction } from '../../src/bots/discord/index.js';
import { createTelegramBot } from '../../src/bots/telegram/index.js';
import { notifications, subscriptions } from '../../src/db/schema/index.js';
import { createLogger } from '../../src/logger.js';
import { findOrCreateChatAccount } from '../../src/services/accounts/index.js';
import type { ServiceContext } from '../../src/services/context.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { startFakeBotApi, type FakeBotApi } from './fake-bot-api.js';
import { onlyCallback, startFakeDiscordApi, type FakeDiscordApi } from './fake-discord-api.js';

// Lists and confirmations as a user sees them (#16 item 5): pages of whole lines under each
// platform's limit, titles instead of ids, "(new)" that clears, questions with counts before a
// removal, and Pause/Resume taps that edit their message. Golden messages: ./golden/lists/.

const TOKEN = '123456:TEST-token';
const APP = '111222333';
const logger = createLogger('silent');
const ALERTS = 38;
const TG_USER = 7301;
const DC_USER = '8301';
let env: TestEnv;
let tgApi: FakeBotApi;
let dcApi: FakeDiscordApi;
let busy: SeededEvent;
let small: SeededEvent;
let updateId = 1;
let interactionId = 1;

// A long title, so that Discord's 2,000 characters, not the 8 entries, end its pages.
const LONG_TITLE = `Will the ${'very '.repeat(30)}long-running Zorblax & <Mayor> race_* [runoff] end before the spring`;

const golden = (name: string) => `./golden/lists/${name}.txt`;

async function chatUser(kind: 'telegram' | 'discord', userId: string): Promise<ServiceContext> {
  const account = await findOrCreateChatAccount(env, { kind, userId });
  const caller = kind === 'telegram' ? { kind, telegramUserId: userId } : { kind, discordUserId: userId };
  return { database: env.database, config: env.config, logger, caller, account } as ServiceContext;
}
const tgChat: ChatInfo = { kind: 'telegram', chatId: TG_USER, isPrivate: true };
const dcChat: ChatInfo = { kind: 'discord', chatId: 'dm-8301', isPrivate: true };

/** 38 alerts "up 1" … "up 38", one per market, created a minute apart (newest first in lists). */
async function thirtyEightAlerts(ctx: ServiceContext, chat: ChatInfo): Promise<void> {
  for (let i = 0; i < ALERTS; i++) {
    const created = await runCommand(ctx, chat, `alert ${busy.markets[i]!.id} up ${i + 1}`);
    expect(created.failed).toBeUndefined();
  }
  await env.database.db
    .update(subscriptions)
    .set({ createdAt: sql`timestamptz '2026-01-01 00:00:00+00' + (${subscriptions.thresholdPercent} * interval '1 minute')` })
    .where(eq(subscriptions.accountId, ctx.account.id));
}

const LINE = /^[1-8]\. "Will the (very )+long-running Zorblax & <Mayor> race_\* \[runoff\] end before the spring: outcome (\d+)\?" rises above (\d+)% · every 30m · active · not fired yet$/;

/** The pages' entry lines: each whole (the pattern matches to its end), and which alert it is. */
function entries(pages: readonly string[]): number[] {
  return pages.flatMap((page) =>
    page
      .split('\n')
      .slice(1, -1)
      .map((line) => {
        const m = LINE.exec(line);
        expect(m, line).not.toBeNull();
        expect(m![2]).toBe(m![3]); // market n carries the alert "up n"
        return Number(m![3]);
      }),
  );
}

const every = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

beforeAll(async () => {
  env = await createTestEnv();
  tgApi = await startFakeBotApi(TOKEN);
  dcApi = await startFakeDiscordApi(APP);
  busy = await seedEvent(env.database, { title: LONG_TITLE, markets: ALERTS });
  small = await seedEvent(env.database, { title: 'Fed cuts rates in March', markets: 2 });
});
afterAll(async () => {
  await tgApi?.close();
  await dcApi?.close();
  await env?.close();
});

describe('Telegram', () => {
  const bot = () => createTelegramBot({ token: TOKEN, apiRoot: tgApi.url, deps: { database: env.database, config: env.config, logger }, botInfo: { id: 1, is_bot: true, first_name: 'Odds', username: 'OddswatchTestBot', can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false, can_connect_to_business: false, has_main_web_app: false } as never });
  const command = (text: string): Update =>
    ({
      update_id: updateId++,
      message: { message_id: updateId, date: 0, chat: { id: TG_USER, type: 'private', first_name: 'U' }, from: { id: TG_USER, is_bot: false, first_name: 'U' }, text, entities: [{ type: 'bot_command', offset: 0, length: text.split(' ')[0]!.length }] },
    }) as Update;
  const tap = (data: string, messageId = 500): Update =>
    ({
      update_id: updateId++,
      callback_query: { id: `cb-${updateId}`, from: { id: TG_USER, is_bot: false, first_name: 'U' }, chat_instance: 'ci', data, message: { message_id: messageId, date: 0, chat: { id: TG_USER, type: 'private', first_name: 'U' }, text: 'x' } },
    }) as Update;
  const buttons = (body: any): { text: string; callback_data: string }[][] => body.reply_markup?.inline_keyboard ?? [];
  const find = (body: any, label: string) => buttons(body).flat().find((b) => b.text === label);

  it('pages 38 alerts with Next and Previous, each page under 4,096 characters, whole lines, each alert once', async () => {
    const ctx = await chatUser('telegram', String(TG_USER));
    await thirtyEightAlerts(ctx, tgChat);
    const b = bot();
    await b.handleUpdate(command('/alerts'));
    let shown = tgApi.callsTo('sendMessage').at(-1)!.body;
    await expect(shown.text).toMatchFileSnapshot(golden('telegram-alerts-page-1'));
    const pages: string[] = [shown.text];
    for (let next = find(shown, 'Next ▶'); next; next = find(shown, 'Next ▶')) {
      expect(Buffer.byteLength(next.callback_data)).toBeLessThanOrEqual(64);
      await b.handleUpdate(tap(next.callback_data));
      shown = tgApi.callsTo('editMessageText').at(-1)!.body; // the page replaces the one it was tapped on
      expect(shown.message_id).toBe(500);
      pages.push(shown.text);
    }
    expect(pages).toHaveLength(5);
    for (const [i, page] of pages.entries()) {
      expect(page.length).toBeLessThanOrEqual(4096);
      expect(page.split('\n').at(-1)).toBe(`Page ${i + 1} of 5`);
    }
    expect(entries(pages).sort((x, y) => x - y)).toEqual(every(ALERTS));
    // Each page's buttons: a number per line to pause or delete it, then Previous/Next.
    expect(buttons(shown).flat().map((b) => b.text)).toEqual(['1 ⏸ Pause', '1 🗑', '2 ⏸ Pause', '2 🗑', '3 ⏸ Pause', '3 🗑', '4 ⏸ Pause', '4 🗑', '5 ⏸ Pause', '5 🗑', '6 ⏸ Pause', '6 🗑', '◀ Previous']);
    await b.handleUpdate(tap(find(shown, '◀ Previous')!.callback_data));
    expect(tgApi.callsTo('editMessageText').at(-1)!.body.text).toBe(pages[3]);
  });

  it('the Pause tap edits its message to "Paused ✓" with Resume; Resume on an active alert changes and sends nothing', async () => {
    const ctx = await chatUser('telegram', String(TG_USER));
    const b = bot();
    const [newest] = await env.database.db.select().from(subscriptions).where(and(eq(subscriptions.accountId, ctx.account.id), eq(subscriptions.thresholdPercent, ALERTS)));
    const sent = tgApi.callsTo('sendMessage').length;

    await b.handleUpdate(tap(`pause:${newest!.id}`, 501));
    const edited = tgApi.callsTo('editMessageText').at(-1)!.body;
    expect(edited.message_id).toBe(501);
    await expect(edited.text.replace(/\n.*/s, '')).toMatchFileSnapshot(golden('telegram-paused-first-line'));
    expect(edited.text).toMatch(/ · paused · not fired yet$/);
    expect(buttons(edited)).toEqual([[{ text: '▶ Resume', callback_data: `resume:${newest!.id}` }, { text: '🗑 Delete', callback_data: `delete:${newest!.id}` }]]);

    await b.handleUpdate(tap(`resume:${newest!.id}`, 501));
    const [resumed] = await env.database.db.select().from(subscriptions).where(eq(subscriptions.id, newest!.id));
    expect(resumed!.enabled).toBe(true);

    // An old Resume button, tapped again on the now active alert: no message, no edit, no write.
    const edits = tgApi.callsTo('editMessageText').length;
    await b.handleUpdate(tap(`resume:${newest!.id}`, 501));
    expect(tgApi.callsTo('sendMessage')).toHaveLength(sent);
    expect(tgApi.callsTo('editMessageText')).toHaveLength(edits);
    expect(tgApi.callsTo('answerCallbackQuery').at(-1)!.body).toMatchObject({ text: 'This alert is already active.', show_alert: true });
    const [after] = await env.database.db.select().from(subscriptions).where(eq(subscriptions.id, newest!.id));
    expect(after!.updatedAt).toEqual(resumed!.updatedAt);
    expect(after!.statusReason).toBe('Restarted by user');
  });

  it('/inbox shows type, title, price and time, and "(new)" is gone once a page was shown', async () => {
    const ctx = await chatUser('telegram', String(TG_USER));
    await env.database.db.insert(notifications).values(
      every(12).map((i) => ({
        id: `n-lists-${String(i).padStart(2, '0')}`,
        accountId: ctx.account.id,
        type: 'price_notification' as const,
        dedupeKey: `lists-${i}`,
        createdAt: new Date(Date.UTC(2026, 0, 2, 9, i)),
        payload: { type: 'price_notification', marketQuestion: small.markets[i % 2]!.question, eventTitle: small.title, detectedValue: 0.6 + i / 100 },
      })),
    );
    const b = bot();
    await b.handleUpdate(command('/inbox'));
    const first = tgApi.callsTo('sendMessage').at(-1)!.body;
    await expect(first.text).toMatchFileSnapshot(golden('telegram-inbox-first-look'));
    expect(first.text.match(/\(new\)/g)).toHaveLength(10);

    await b.handleUpdate(command('/inbox'));
    const second = tgApi.callsTo('sendMessage').at(-1)!.body;
    expect(second.text).not.toContain('(new)');
    // The second page was never shown: its entries are still new, until Next shows them.
    await b.handleUpdate(tap(find(second, 'Next ▶')!.callback_data));
    expect(tgApi.callsTo('editMessageText').at(-1)!.body.text.match(/\(new\)/g)).toHaveLength(2);
    await b.handleUpdate(tap(find(second, 'Next ▶')!.callback_data));
    expect(tgApi.callsTo('editMessageText').at(-1)!.body.text).not.toContain('(new)');
  });
});

describe('Discord', () => {
  const bot = () => createDiscordBot({ token: 'discord-bot-token', applicationId: APP, apiUrl: dcApi.url, deps: { database: env.database, config: env.config, logger } });
  const base = (type: number) => {
    const id = `l${interactionId++}`;
    return { id, token: `ltoken${id}`, type, application_id: APP, channel_id: 'dm-8301', user: { id: DC_USER } };
  };
  const slash = (name: string): RawInteraction => ({ ...base(2), data: { name, options: [] } });
  const click = (customId: string): RawInteraction => ({ ...base(3), data: { custom_id: customId } });
  const components = (data: any): { label: string; custom_id: string }[][] => (data.components ?? []).map((row: any) => row.components);
  const find = (data: any, label: string) => components(data).flat().find((b) => b.label === label);

  it('pages 38 alerts under 2,000 characters with Next and Previous (UPDATE_MESSAGE), whole lines, each alert once', async () => {
    const ctx = await chatUser('discord', DC_USER);
    await thirtyEightAlerts(ctx, dcChat);
    const b = bot();
    const list = slash('alerts');
    await b.handleInteraction(list);
    let shown = onlyCallback(dcApi, list).data;
    const pages: string[] = [shown.content];
    for (let next = find(shown, 'Next ▶'); next; next = find(shown, 'Next ▶')) {
      const press = click(next.custom_id);
      await b.handleInteraction(press);
      const answer = onlyCallback(dcApi, press);
      expect(answer.type).toBe(7);
      shown = answer.data;
      pages.push(shown.content);
    }
    await expect(pages[1]).toMatchFileSnapshot(golden('discord-alerts-page-2'));
    expect(pages.length).toBeGreaterThan(5); // the characters, not the 8 entries, ended these pages
    for (const [i, page] of pages.entries()) {
      expect(page.length).toBeLessThanOrEqual(2000);
      expect(page.split('\n').at(-1)).toBe(`Page ${i + 1} of ${pages.length}`);
    }
    expect(entries(pages).sort((x, y) => x - y)).toEqual(every(ALERTS));
    expect(components(shown).length).toBeLessThanOrEqual(5);
    for (const row of components(shown)) expect(row.length).toBeLessThanOrEqual(5);
  });

  it('asks with counts before /watchlist delete and /unwatch; Cancel changes nothing, Confirm removes', async () => {
    const ctx = await chatUser('discord', DC_USER);
    const count = async () => (await env.database.db.select().from(subscriptions).where(and(eq(subscriptions.accountId, ctx.account.id), eq(subscriptions.enabled, true)))).length;
    const b = bot();

    const shown = await runCommand(ctx, dcChat, 'watchlist show My watchlist');
    await expect(shown.text).toMatchFileSnapshot(golden('watchlist-show'));
    expect(shown.text).not.toContain(busy.id);

    const unwatch = await runCommand(ctx, dcChat, `unwatch ${busy.id}`);
    await expect(unwatch.text).toMatchFileSnapshot(golden('unwatch-question'));
    const cancel = click(unwatch.buttons![0]![1]!.action);
    await b.handleInteraction(cancel);
    expect(onlyCallback(dcApi, cancel)).toEqual({ type: 7, data: { content: 'Cancelled: nothing was changed.', components: [] } });
    expect(await count()).toBe(ALERTS);

    const asked = await runCommand(ctx, dcChat, 'watchlist delete my watchlist');
    await expect(asked.text).toMatchFileSnapshot(golden('watchlist-delete-question'));
    expect(await count()).toBe(ALERTS);
    const yes = click(asked.buttons![0]![0]!.action);
    await b.handleInteraction(yes);
    expect(onlyCallback(dcApi, yes)).toEqual({ type: 7, data: { content: 'Deleted watchlist "My watchlist" ✓', components: [] } });
    expect(await count()).toBe(0);
    expect((await runCommand(ctx, dcChat, 'alerts')).text).toBe('You have no alerts. Create one with /alert.');
  });

  it('/delete asks first; the question names the alert; nothing is deleted before Confirm', async () => {
    const ctx = await chatUser('discord', '8302');
    const made = await runCommand(ctx, dcChat, `alert ${small.markets[0]!.id} below 40 once`);
    const id = made.buttons![0]![0]!.action.split(':')[1]!;
    const asked: BotReply = await runCommand(ctx, dcChat, `delete ${id}`);
    await expect(asked.text).toMatchFileSnapshot(golden('delete-question'));
    expect(asked.buttons).toEqual([[{ label: '🗑 Yes, delete', action: `confirm:delete:${id}` }, { label: 'Cancel', action: 'cancel' }]]);
    expect((await runCommand(ctx, dcChat, 'alerts')).text).toContain('is below 40% · once · active');
    expect((await runButton(ctx, dcChat, `confirm:delete:${id}`)).text).toMatch(/^Deleted ✓\n/);
    expect((await runCommand(ctx, dcChat, 'alerts')).text).toBe('You have no alerts. Create one with /alert.');
  });
});

describe('the command layer', () => {
  it("/watchlists has a Show button per watchlist; in a group a page tap answers anew instead of replacing another member's list", async () => {
    const ctx = await chatUser('telegram', '7399');
    const dm: ChatInfo = { kind: 'telegram', chatId: 7399, isPrivate: true };
    await runCommand(ctx, dm, 'watchlist new Macro');
    expect((await runCommand(ctx, dm, `watch ${small.id} Macro`)).text).toContain('in "Macro"');
    const list = await runCommand(ctx, dm, 'watchlists');
    expect(list.text).toBe('Your watchlists (1):\n1. Macro — 1 event');
    const show = list.buttons![0]![0]!;
    expect(show.label).toBe('1 Show');
    const shown = await runButton(ctx, dm, show.action);
    expect(shown).toMatchObject({ edit: true, text: '"Macro" — 1 event:\n• Fed cuts rates in March (2 markets): Fed cuts rates in March: outcome 1? / Fed cuts rates in March: outcome 2?' });
    const inGroup = await runButton(ctx, { kind: 'telegram', chatId: -100777, isPrivate: false }, show.action);
    expect(inGroup.text).toBe(shown.text);
    expect(inGroup.edit).toBeUndefined();
  });
});

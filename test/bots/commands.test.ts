import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runButton, runCommand, type BotReply, type ChatInfo } from '../../src/bots/commands/index.js';
import { createLogger } from '../../src/logger.js';
import { findOrCreateChatAccount } from '../../src/services/accounts/index.js';
import type { ServiceContext } from '../../src/services/context.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { subscribe } from '../support/subscriptions.js';

let env: TestEnv;
let fed: SeededEvent;
let btc: SeededEvent;
const logger = createLogger('silent');

async function chatUser(telegramUserId: string): Promise<ServiceContext> {
  const account = await findOrCreateChatAccount(env, { kind: 'telegram', userId: telegramUserId });
  return { database: env.database, config: env.config, logger, account };
}
const dm = (id: number): ChatInfo => ({ kind: 'telegram', chatId: id, isPrivate: true });
const group: ChatInfo = { kind: 'telegram', chatId: -100123, isPrivate: false };
/** Taps the first button of a "Delete …?" question: its Confirm. */
const confirm = (ctx: ServiceContext, chat: ChatInfo, asked: BotReply) => runButton(ctx, chat, asked.buttons![0]![0]!.action);

beforeAll(async () => {
  env = await createTestEnv();
  fed = await seedEvent(env.database, { title: 'Fed decision in December', markets: 2, tags: ['economy'] });
  btc = await seedEvent(env.database, { title: 'Bitcoin above 100k by June', markets: 1, tags: ['crypto'] });
});
afterAll(() => env?.close());

describe('chat accounts', () => {
  it('creates an account on first use and finds the same one afterwards, even when two first messages race', async () => {
    const [a, b] = await Promise.all([
      findOrCreateChatAccount(env, { kind: 'telegram', userId: '5001' }),
      findOrCreateChatAccount(env, { kind: 'telegram', userId: '5001' }),
    ]);
    expect(a.id).toBe(b.id);
    expect((await findOrCreateChatAccount(env, { kind: 'telegram', userId: '5001' })).id).toBe(a.id);
    expect((await findOrCreateChatAccount(env, { kind: 'discord', userId: '5001' })).id).not.toBe(a.id);
  });
});

describe('the command layer', () => {
  it('help and start list every command with its usage', async () => {
    const ctx = await chatUser('1001');
    const help = await runCommand(ctx, dm(1001), '/help');
    for (const name of ['search', 'watch', 'unwatch', 'watchlists', 'watchlist', 'alert', 'alerts', 'testalert', 'pause', 'resume', 'delete', 'inbox', 'token']) {
      expect(help.text).toContain(`/${name}`);
    }
    expect((await runCommand(ctx, dm(1001), '/start@OddsBot')).text).toMatch(/^Welcome/);
  });

  it('search finds seeded events by words and by tag, with markets, ids, watch and alert buttons', async () => {
    const ctx = await chatUser('1002');
    const byWords = await runCommand(ctx, dm(1002), 'search fed decision');
    expect(byWords.text).toContain('Fed decision in December');
    expect(byWords.text).toContain(`event ${fed.id}`);
    expect(byWords.text).toContain(`market ${fed.markets[1]!.id}`);
    expect(byWords.buttons).toEqual([
      [
        { label: 'Watch A', action: `watch:${fed.id}` },
        { label: 'Alert 1', action: `flow:a:${fed.markets[0]!.id}` },
        { label: 'Alert 2', action: `flow:a:${fed.markets[1]!.id}` },
      ],
    ]);
    const byTag = await runCommand(ctx, dm(1002), 'search tag:crypto');
    expect(byTag.text).toContain('Bitcoin above 100k');
    expect(byTag.text).not.toContain('Fed decision');
    // A tag in any case, as people type it (#21).
    expect((await runCommand(ctx, dm(1002), 'search tag:Crypto')).text).toBe(byTag.text);
    expect((await runCommand(ctx, dm(1002), 'search nothingmatcheszzz')).text).toMatch(/No open events/);
    // #16: words in any order, prefixes and a typo find what a person means.
    for (const words of ['bitc', 'june bitcoin', 'Bitcoin 100k', 'bitcoim jun']) {
      const reply = await runCommand(ctx, dm(1002), `search ${words}`);
      expect(reply.text, words).toContain('Bitcoin above 100k by June');
      expect(reply.text, words).not.toContain('Fed decision');
    }
  });

  it('watch by slug creates "My watchlist"; watch by link and by id into a named one; unwatch removes it', async () => {
    const ctx = await chatUser('1003');
    expect((await runCommand(ctx, dm(1003), `watch ${fed.slug}`)).text).toContain('in "My watchlist"');
    await runCommand(ctx, dm(1003), 'watchlist new Crypto bets');
    expect((await runCommand(ctx, dm(1003), `watch https://polymarket.com/event/${btc.slug}?tid=1 Crypto bets`)).text).toContain(
      'in "Crypto bets"',
    );
    const list = await runCommand(ctx, dm(1003), 'watchlists');
    expect(list.text).toContain('My watchlist — 1 event');
    expect(list.text).toContain('Crypto bets — 1 event');
    const shown = await runCommand(ctx, dm(1003), 'watchlist show crypto bets');
    expect(shown.text).toContain('• Bitcoin above 100k by June');
    expect(shown.text).not.toContain(btc.id);
    const asked = await runCommand(ctx, dm(1003), `unwatch ${btc.id}`);
    expect(asked.text).toContain('Stop watching "Bitcoin above 100k by June"? It leaves "Crypto bets" and 0 active alerts on it are paused.');
    expect((await confirm(ctx, dm(1003), asked)).text).toContain('Stopped watching');
    expect((await runCommand(ctx, dm(1003), 'watchlist show Crypto bets')).text).toContain('no events yet');
  });

  it('renames and deletes a watchlist by id', async () => {
    const ctx = await chatUser('1004');
    const created = await runCommand(ctx, dm(1004), 'watchlist new Old name');
    const id = /id ([^)]+)\)/.exec(created.text)![1]!;
    expect((await runCommand(ctx, dm(1004), `watchlist rename ${id} New name`)).text).toBe('Renamed to "New name".');
    const asked = await runCommand(ctx, dm(1004), `watchlist delete ${id}`);
    expect(asked.text).toContain('Delete watchlist "New name"? 0 events and 0 alerts go with it.');
    expect((await confirm(ctx, dm(1004), asked)).text).toContain('Deleted watchlist "New name"');
    expect((await runCommand(ctx, dm(1004), 'watchlists')).text).toContain('no watchlists');
  });

  it('alert stores the same subscription a REST call would, with this chat as its Telegram channel', async () => {
    const ctx = await chatUser('1005');
    const tokenReply = await runCommand(ctx, dm(1005), 'token');
    expect(tokenReply.private).toBe(true);
    const token = /\n(\S+)\n/.exec(tokenReply.text)![1]!;
    const auth = { Authorization: `Bearer ${token}` };

    const reply = await runCommand(ctx, dm(1005), `alert ${fed.markets[0]!.id} up 60 every 5m`);
    const subId = /• (\S+):/.exec(reply.text)![1]!;
    expect(reply.buttons).toEqual([[{ label: 'Pause', action: `pause:${subId}` }, { label: 'Delete', action: `delete:${subId}` }]]);
    const viaBot = (await env.http.get(`/subscription/${subId}`).set(auth).expect(200)).body.subscription;

    const restId = await subscribe(env, { auth }, viaBot.watchlistId, {
      eventId: fed.id,
      marketId: fed.markets[0]!.id,
      threshold: 60,
      triggerInterval: '5m',
      channels: [{ type: 'Telegram', settings: { telegramChatId: 1005 } }],
    });
    const viaRest = (await env.http.get(`/subscription/${restId}`).set(auth).expect(200)).body.subscription;
    const comparable = (s: Record<string, unknown>) => ({ ...s, subscriptionId: 'x', createdAt: 'x', updatedAt: 'x' });
    expect(comparable(viaBot)).toEqual(comparable(viaRest));
    expect(viaBot.watchlistName).toBe('My watchlist');

    const once = await runCommand(ctx, dm(1005), `alert ${btc.markets[0]!.id} below 20 once`);
    expect(once.text).toContain('Less Than 20% on');
    expect(once.text).toContain('once');
    const alerts = await runCommand(ctx, dm(1005), 'alerts');
    expect(alerts.text).toContain(`"${fed.markets[0]!.question}" rises above 60% · every 5m · active · not fired yet`);
    expect(alerts.text).not.toContain(subId);
  });

  it('pause, resume and delete an alert; another user sees "not found"', async () => {
    const owner = await chatUser('1006');
    const other = await chatUser('1007');
    const reply = await runCommand(owner, dm(1006), `alert ${fed.markets[1]!.id} cross 40`);
    const subId = /• (\S+):/.exec(reply.text)![1]!;
    for (const verb of ['pause', 'resume', 'delete']) {
      expect((await runCommand(other, dm(1007), `${verb} ${subId}`)).text).toMatch(/^I can't find that alert \(it may have been deleted\)/);
    }
    expect((await runCommand(owner, dm(1006), `pause ${subId}`)).text).toMatch(/^Paused ✓\n.* · paused · /);
    expect((await runCommand(owner, dm(1006), `resume ${subId}`)).text).toMatch(/^Resumed ✓\n.* · active · /);
    const asked = await runCommand(owner, dm(1006), `delete ${subId}`);
    expect(asked.text).toMatch(/^Delete this alert and its history\?\n/);
    expect((await runCommand(owner, dm(1006), 'alerts')).text).toContain('crosses 40% either way');
    expect((await runButton(other, dm(1007), asked.buttons![0]![0]!.action)).text).toMatch(/^I can't find that alert/);
    expect((await confirm(owner, dm(1006), asked)).text).toMatch(/^Deleted ✓\n/);
    expect((await runCommand(owner, dm(1006), 'alerts')).text).toContain('no alerts');
  });

  it('unwatch pauses the alerts on that event; resume asks for the event back first', async () => {
    const ctx = await chatUser('1008');
    const reply = await runCommand(ctx, dm(1008), `alert ${btc.markets[0]!.id} up 70`);
    const subId = /• (\S+):/.exec(reply.text)![1]!;
    const asked = await runCommand(ctx, dm(1008), `unwatch ${btc.id}`);
    expect(asked.text).toContain('and 1 active alert on it is paused.');
    expect((await confirm(ctx, dm(1008), asked)).text).toContain('Stopped watching');
    expect((await runCommand(ctx, dm(1008), 'alerts')).text).toContain(' · paused · ');
    expect((await runCommand(ctx, dm(1008), `resume ${subId}`)).text).toBe(
      "That alert's event is no longer on your watchlist: /watch it again, then resume the alert.",
    );
    await runCommand(ctx, dm(1008), `watch ${btc.id}`);
    expect((await runCommand(ctx, dm(1008), `resume ${subId}`)).text).toContain('active');
  });

  it('bad input gets a short usage text, never an exception', async () => {
    const ctx = await chatUser('1008');
    const cases: [string, RegExp][] = [
      ['search', /Usage: \/search/],
      ['watch', /Usage: \/watch/],
      ['watch no-such-event-slug', /^I can't find that event\. Find one with \/search/],
      ['watchlist', /Usage: \/watchlist new/],
      ['watchlist show nope', /^I can't find that watchlist/],
      ['alert', /Usage: \/alert <market id>/],
      ['alert 123 sideways 5', /^sideways is not a condition: use up, down, cross, step, above, below, jumps, drops, moves, trade, volume, resolution or closing\.\nUsage: \/alert/],
      [`alert ${fed.markets[0]!.id} up abc`, /^abc is not a number: .*\nUsage: \/alert/],
      [`alert ${fed.markets[0]!.id} up 150`, /^150 is not a percentage between 0 and 100\.\nUsage: \/alert/],
      [`alert ${fed.markets[0]!.id} up 10 every 7m`, /every 5m\|30m/],
      ['alert nosuchmarket up 10', /^I can't find that market/],
      ['pause', /Usage: \/pause <alert id>/],
      ['frobnicate', /Unknown command "frobnicate"/],
    ];
    for (const [text, expected] of cases) expect((await runCommand(ctx, dm(1008), text)).text, text).toMatch(expected);
  });

  it('token in a group says a private message was sent and keeps the token out of the group', async () => {
    const ctx = await chatUser('1009');
    const reply = await runCommand(ctx, group, 'token');
    expect(reply.text).toBe('I sent you a private message.');
    expect(reply.privateMessage).toMatch(/API token/);
  });

  it('inbox answers even when empty', async () => {
    const ctx = await chatUser('1010');
    expect((await runCommand(ctx, dm(1010), 'inbox')).text).toBe('Your inbox is empty.');
  });
});

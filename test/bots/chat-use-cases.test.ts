import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runButton, runCommand, type ChatInfo } from '../../src/bots/commands/index.js';
import { errorReply } from '../../src/bots/commands/replies.js';
import { createLogger } from '../../src/logger.js';
import { findOrCreateChatAccount } from '../../src/services/accounts/index.js';
import type { ServiceContext } from '../../src/services/context.js';
import { conflict, forbidden, unauthorized, validationError } from '../../src/services/errors.js';
import { listSubscriptions } from '../../src/services/subscriptions/index.js';
import { createWatchlist, listWatchlists } from '../../src/services/watchlists/index.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestEnv } from '../support/context.js';

let env: TestEnv;
let fed: SeededEvent;
let btc: SeededEvent;
const logger = createLogger('silent');

async function chatUser(telegramUserId: string, limits: Partial<ServiceContext['config']> = {}): Promise<ServiceContext> {
  const account = await findOrCreateChatAccount(env, { kind: 'telegram', userId: telegramUserId });
  return { database: env.database, config: { ...env.config, ...limits }, logger, account };
}
const dm = (id: number): ChatInfo => ({ kind: 'telegram', chatId: id, isPrivate: true });
const eventsHeld = async (ctx: ServiceContext) =>
  Object.fromEntries((await listWatchlists({ ctx, input: {} })).map((w) => [w.name, Object.keys(w.events)]));

// What a chat reply must never show: REST field paths, setting names, the REST entity name.
const REST_WORDS = /threshold_percent|subscriptionTypeConfig|watchlistId|\bMAX_[A-Z_]+|Subscription|PATCH|\w+\.\w+\.\w+:/;

beforeAll(async () => {
  env = await createTestEnv();
  fed = await seedEvent(env.database, { title: 'Fed decision in December', markets: 2, tags: ['economy'] });
  btc = await seedEvent(env.database, { title: 'Bitcoin above 100k by June', markets: 1, tags: ['crypto'] });
});
afterAll(() => env?.close());

describe('a chat command is one use case in one transaction', () => {
  it('/alert <market> step 60 answers in chat words and leaves no watchlist and no event behind', async () => {
    const ctx = await chatUser('2001');
    const reply = await runCommand(ctx, dm(2001), `/alert ${fed.markets[0]!.id} step 60`);
    expect(reply.text).toMatch(/^60 is not a valid step: a step is at most 50 percent\.\nUsage: \/alert /);
    expect(reply.text).not.toMatch(REST_WORDS);
    expect(await listWatchlists({ ctx, input: {} })).toEqual([]);
  });

  it('a refused rule does not add the event to an existing default watchlist either', async () => {
    const ctx = await chatUser('2002');
    await runCommand(ctx, dm(2002), `watch ${btc.slug}`);
    expect((await runCommand(ctx, dm(2002), `alert ${fed.markets[0]!.id} step 60`)).text).toMatch(/^60 is not a valid step/);
    expect(await eventsHeld(ctx)).toEqual({ 'My watchlist': [btc.id] });
  });

  it('a limit hit after the watchlist step (the alert limit) leaves no watchlist and no event behind', async () => {
    const ctx = await chatUser('2003', { MAX_SUBSCRIPTIONS: 0 });
    const reply = await runCommand(ctx, dm(2003), `alert ${fed.markets[1]!.id} up 60`);
    expect(reply.text).toBe('You already have 0 alerts, the most an account may hold. Delete one with /delete first.');
    expect(await listWatchlists({ ctx, input: {} })).toEqual([]);

    const roomy = await chatUser('2003', { MAX_SUBSCRIPTIONS: 1 });
    expect((await runCommand(roomy, dm(2003), `alert ${fed.markets[1]!.id} up 60`)).text).toMatch(/^Alert created/);
    expect((await runCommand(roomy, dm(2003), `alert ${btc.markets[0]!.id} down 40`)).text).toMatch(/^You already have 1 alerts/);
    expect(await eventsHeld(roomy)).toEqual({ 'My watchlist': [fed.id] });
    expect(await listSubscriptions({ ctx: roomy, input: {} })).toHaveLength(1);
  });

  it('a full default watchlist refuses the event and creates nothing', async () => {
    const ctx = await chatUser('2004', { MAX_EVENTS_PER_WATCHLIST: 1 });
    await runCommand(ctx, dm(2004), `watch ${btc.slug}`);
    const reply = await runCommand(ctx, dm(2004), `alert ${fed.markets[0]!.id} up 60`);
    expect(reply.text).toBe('That watchlist already holds 1 events, the most it may hold. Remove one with /unwatch first.');
    expect(await eventsHeld(ctx)).toEqual({ 'My watchlist': [btc.id] });
    expect(await listSubscriptions({ ctx, input: {} })).toEqual([]);
  });

  it('the alert goes to the watchlist already holding the event, not the default one', async () => {
    const ctx = await chatUser('2005');
    const macro = await createWatchlist({ ctx, input: { name: 'Macro', events: { [fed.id]: {} } } });
    const reply = await runCommand(ctx, dm(2005), `alert ${fed.markets[0]!.id} cross 45 once`);
    expect(reply.text).toMatch(/^Alert created/);
    expect((await listSubscriptions({ ctx, input: {} }))[0]!.watchlistId).toBe(macro.id);
    expect((await listWatchlists({ ctx, input: {} })).map((w) => w.name)).toEqual(['Macro']);
  });

  it('two first commands at once make one "My watchlist"', async () => {
    const ctx = await chatUser('2006');
    await Promise.all([runCommand(ctx, dm(2006), `watch ${fed.slug}`), runCommand(ctx, dm(2006), `watch ${btc.slug}`)]);
    const held = await eventsHeld(ctx);
    expect(Object.keys(held)).toEqual(['My watchlist']);
    expect(held['My watchlist']!.sort()).toEqual([fed.id, btc.id].sort());
  });
});

describe('chat words for service errors', () => {
  it('the alert words a user gets wrong are named with the fix', async () => {
    const ctx = await chatUser('2101');
    const market = fed.markets[0]!.id;
    const cases: [string, string][] = [
      [`alert ${market} up 150`, '150 is not a percentage between 0 and 100.'],
      [`alert ${market} up 0`, '0 is not a percentage between 0 and 100.'],
      [`alert ${market} up -5`, '-5 is not a percentage between 0 and 100.'],
      [`alert ${market} step 60`, '60 is not a valid step: a step is at most 50 percent.'],
      [`alert ${market} step 0.005`, '0.005 is not a valid step: a step is at least 0.01 percent.'],
      [`alert ${market} sideways 5`, 'sideways is not a condition: use up, down, cross, step, above, below, jumps, drops, moves, trade, volume, resolution or closing.'],
      [`alert ${market} constructor 5`, 'constructor is not a condition: use up, down, cross, step, above, below, jumps, drops, moves, trade, volume, resolution or closing.'],
      [`alert ${market} up 60,5`, '60,5 is not a number: write it with digits and a dot, like 60 or 60.5.'],
      [`alert ${market} up 60 every 7m`, 'every 7m is not a repeat: use once, every 5m, every 30m, every 60m, every 6h, every 12h or every 24h.'],
    ];
    for (const [text, words] of cases) {
      const reply = await runCommand(ctx, dm(2101), text);
      expect(reply.text, text).toBe(`${words}\nUsage: /alert <market id> <condition> [once | every 5m|30m|60m|6h|12h|24h]`);
    }
    expect(await listWatchlists({ ctx, input: {} })).toEqual([]);
  });

  it('not found, per thing, without the REST words', async () => {
    const ctx = await chatUser('2102');
    const cases: [string, string][] = [
      ['pause 0193ffff-no-such-alert', "I can't find that alert (it may have been deleted). Send /alerts to see yours."],
      ['delete 0193ffff-no-such-alert', "I can't find that alert (it may have been deleted). Send /alerts to see yours."],
      ['watchlist rename Nope New', "I can't find that watchlist (it may have been deleted). Send /watchlists to see yours."],
      ['watch no-such-event', "I can't find that event. Find one with /search."],
      ['alert 999999999 up 10', "I can't find that market. Find one with /search: each market's id is in its answer."],
    ];
    for (const [text, words] of cases) expect((await runCommand(ctx, dm(2102), text)).text, text).toBe(words);
  });

  it('limits are said without setting names', async () => {
    const ctx = await chatUser('2103', { MAX_WATCHLISTS: 1 });
    await runCommand(ctx, dm(2103), 'watchlist new First');
    const reply = await runCommand(ctx, dm(2103), 'watchlist new Second');
    expect(reply.text).toBe('You already have 1 watchlists, the most an account may hold. Delete one with /watchlist delete first.');
    const tokens = await chatUser('2104', { MAX_TOKENS: 0 });
    expect((await runCommand(tokens, dm(2104), 'token')).text).toMatch(/^You already have 0 active API tokens/);
  });

  it('a too long watchlist name names the bound', async () => {
    const ctx = await chatUser('2105');
    const reply = await runCommand(ctx, dm(2105), `watchlist new ${'x'.repeat(201)}`);
    expect(reply.text).toMatch(/^A watchlist name is at most 200 characters\.\nUsage: \/watchlist/);
  });

  it('conflict, unauthorized and forbidden get a sentence of their own; nothing shows a REST word', () => {
    const cases = [
      conflict('This watchlist uses keyphrases; update it with PATCH /watchlists/{watchlistId}/query/keyphrases'),
      unauthorized('Token has been revoked'),
      forbidden('Only an admin account can create accounts'),
    ];
    const replies = cases.map((err) => errorReply(err, undefined, 'telegram', logger).text);
    expect(replies).toEqual([
      'That clashes with how things are now; check with /watchlists or /alerts and try again.',
      'You are not allowed to do that.',
      'You are not allowed to do that.',
    ]);
    for (const text of replies) expect(text).not.toMatch(REST_WORDS);
  });

  it('a validation message that would still name a field or setting says only which word was refused', () => {
    const cases = [
      validationError('bad', [{ path: ['triggerInterval'], code: 'invalid_value', input: '7m', message: 'triggerInterval must be one of 0m, 5m' }]),
      validationError('bad', [{ path: ['x'], code: 'custom', message: 'threshold_percent must be a number' }]),
      validationError('bad', [{ path: ['events', 0], code: 'custom', message: 'events.0.markets: market 9 is not in this event' }]),
    ];
    const replies = cases.map((err) => errorReply(err, undefined, 'telegram', logger).text);
    expect(replies).toEqual(['I can\'t use "7m" there.', "I can't use what you wrote there.", 'market 9 is not in this event']);
    for (const text of replies) expect(text).not.toMatch(REST_WORDS);
  });

  it('rename and delete by name run as one use case each', async () => {
    const ctx = await chatUser('2106');
    await runCommand(ctx, dm(2106), 'watchlist new Old name');
    await runCommand(ctx, dm(2106), `watch ${fed.slug} Old name`);
    const id = (await listWatchlists({ ctx, input: {} }))[0]!.id;
    expect((await runCommand(ctx, dm(2106), `watchlist rename ${id} New name`)).text).toBe('Renamed to "New name".');
    const asked = await runCommand(ctx, dm(2106), 'watchlist delete new name');
    expect(asked.text).toBe('Delete watchlist "New name"? 1 event and 0 alerts go with it.\nNothing changes until you confirm.');
    expect(await listWatchlists({ ctx, input: {} })).toHaveLength(1);
    expect((await runButton(ctx, dm(2106), asked.buttons![0]![0]!.action)).text).toBe('Deleted watchlist "New name" ✓');
    expect(await listWatchlists({ ctx, input: {} })).toEqual([]);
  });
});

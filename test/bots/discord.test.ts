import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { catalogMarkets } from '../../src/db/schema/index.js';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/bots/commands/index.js';
import {
  createDiscordBot,
  DISCORD_COMMANDS,
  discordInteractionsEndpoint,
  EPHEMERAL,
  NEED_WEBHOOK_PERMISSION,
  type RawInteraction,
} from '../../src/bots/discord/index.js';
import { startBotsRole } from '../../src/bots/role.js';
import { answerer } from '../../src/bots/discord/answer.js';
import { writeNotification } from '../../src/delivery/enqueue.js';
import { createApp } from '../../src/http/app.js';
import { startWorkerRole } from '../../src/delivery/role.js';
import { createLogger } from '../../src/logger.js';
import { findOrCreateChatAccount } from '../../src/services/accounts/index.js';
import { getSubscription } from '../../src/services/subscriptions/index.js';
import { waitFor } from '../outbox/support.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { ConfigError, parseConfig } from '../../src/config.js';
import { createTestEnv, TEST_SETTINGS, type TestEnv } from '../support/context.js';
import { onlyCallback, startFakeDiscordApi, type FakeDiscordApi } from './fake-discord-api.js';
import { subscribe } from '../support/subscriptions.js';

const APP = '111222333';
const logger = createLogger('silent');
let env: TestEnv;
let api: FakeDiscordApi;
let event: SeededEvent;
let nextId = 1;

beforeAll(async () => {
  env = await createTestEnv();
  api = await startFakeDiscordApi(APP);
  event = await seedEvent(env.database, { title: 'Mars landing before 2030', markets: 2 });
});
afterAll(async () => {
  await api?.close();
  await env?.close();
});

function makeBot(guildId?: string, deferAfterMs?: number) {
  return createDiscordBot({ token: 'discord-bot-token', applicationId: APP, apiUrl: api.url, guildId, deferAfterMs, deps: { database: env.database, config: env.config, logger } });
}

type Where = { guild?: string; channel?: string };
function base(userId: string, type: number, { guild = 'g1', channel = 'c1' }: Where = {}): Omit<RawInteraction, 'data'> {
  const id = String(nextId++);
  const who = guild ? { guild_id: guild, member: { user: { id: userId } } } : { user: { id: userId } };
  return { id, token: `itoken${id}`, type, application_id: APP, channel_id: channel, ...who };
}
const slash = (userId: string, name: string, options: Record<string, string | number> = {}, where?: Where): RawInteraction => ({
  ...base(userId, 2, where),
  data: { name, options: Object.entries(options).map(([n, value]) => ({ name: n, type: typeof value === 'number' ? 10 : 3, value })) },
});

/** The callback the bot posted for this interaction. */
const callbackFor = (interaction: RawInteraction) => onlyCallback(api, interaction);

/** Calls to the interaction's own webhook (`/webhooks/{application}/{token}…`): follow-ups, edits, deletion. */
const followUps = (interaction: RawInteraction) =>
  api.calls.filter((c) => c.path.startsWith(`/v10/webhooks/${APP}/${interaction.token}`)).map((c) => ({ method: c.method, path: c.path.slice(`/v10/webhooks/${APP}/${interaction.token}`.length), body: c.body }));

/**
 * Runs `action` against a slow database: every query on the subscriptions table waits behind a lock
 * until `deferred()` holds (the bot has told Discord it is thinking), then the lock is let go and
 * the action's result is answered. No clock: the database is slow exactly as long as the test needs.
 */
async function withSlowSubscriptions<T>(action: () => Promise<T>, deferred: () => unknown): Promise<T> {
  let locked!: () => void;
  let release!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const held = env.database.db.transaction(async (tx) => {
    await tx.execute(sql`LOCK TABLE subscriptions IN ACCESS EXCLUSIVE MODE`);
    locked();
    await new Promise<void>((resolve) => (release = resolve));
  });
  await isLocked;
  const result = action();
  result.catch(() => undefined); // awaited below; a rejection meanwhile is not "unhandled"
  try {
    await waitFor(deferred, { message: 'the answer to be deferred' });
  } finally {
    release();
    await held;
  }
  return result;
}

/** The interaction's callbacks as the fake Discord API received them (the deferral among them). */
const callbacksOf = (interaction: RawInteraction) => api.callsTo('POST', new RegExp(`^/v10/interactions/${interaction.id}/`));

const subscriptionIdOf = (content: string) => /• (\S+):/.exec(content)![1]!;

async function discordToken(bot: ReturnType<typeof makeBot>, userId: string): Promise<string> {
  const i = slash(userId, 'token', {}, { guild: '', channel: 'dm1' });
  await bot.handleInteraction(i);
  return /\n(\S+)\n/.exec(callbackFor(i).data.content)![1]!;
}

/** What the engine writes when a price rule fires: the notification, with the rule's channels as stored. */
async function firePriceAlert(
  accountId: string,
  subscriptionId: string,
  fired: { marketId: string; question: string; type: string; percent: number; price: number },
  channel: { discordChannelId: string },
) {
  await writeNotification(env.database.db, {
    accountId,
    subscriptionId,
    type: 'price_notification',
    payload: {
      type: 'price_notification',
      userId: accountId,
      subscriptionId,
      marketId: fired.marketId,
      marketQuestion: fired.question,
      polymarketSlug: 'mars-landing',
      subscriptionTypeConfig: { type: fired.type, config: { params: { threshold_percent: fired.percent } } },
      detectedValue: fired.price,
      detectedAt: new Date().toISOString(),
    },
    dedupeKey: `discord-dm-${subscriptionId}`,
    channels: [{ type: 'Discord', settings: channel }],
  });
}

describe('the Discord bot against a local fake Discord REST API', () => {
  it('registers every slash command through REST, globally or in one guild', async () => {
    await makeBot().registerCommands();
    const put = api.callsTo('PUT', new RegExp(`^/v10/applications/${APP}/commands$`)).at(-1)!;
    expect(put.authorization).toBe('Bot discord-bot-token');
    const names = put.body.map((c: { name: string }) => c.name);
    expect(names).toEqual(['help', 'search', 'watch', 'unwatch', 'watchlists', 'watchlist', 'alert', 'alerts', 'testalert', 'pause', 'resume', 'delete', 'snooze', 'unsnooze', 'digest', 'rearm', 'quiet', 'timezone', 'enable', 'inbox', 'token', 'tokens', 'revoke', 'link', 'login']);
    const alert = put.body.find((c: { name: string }) => c.name === 'alert');
    expect(alert.options.map((o: { name: string; autocomplete?: boolean }) => [o.name, Boolean(o.autocomplete)])).toEqual([
      ['market', true],
      ['condition', true],
      ['repeat', false],
    ]);
    await makeBot('guild9').registerCommands();
    expect(api.callsTo('PUT', new RegExp(`^/v10/applications/${APP}/guilds/guild9/commands$`))).toHaveLength(1);
  });

  it('generates the slash options from the command declarations: typed, with choices and the service bounds', () => {
    const alert = DISCORD_COMMANDS.find((c) => c.name === 'alert')!;
    expect(alert.options).toEqual([
      expect.objectContaining({ name: 'market', type: 3, required: true, autocomplete: true }),
      expect.objectContaining({ name: 'condition', type: 3, required: true, autocomplete: true }),
      expect.objectContaining({ name: 'repeat', type: 3, required: false, choices: expect.arrayContaining([{ name: 'every 30m (At most every 30m)', value: 'every 30m' }]) }),
    ]);
    const watchlist = DISCORD_COMMANDS.find((c) => c.name === 'watchlist')!;
    expect(watchlist.options!.map((o) => [o.name, o.type])).toEqual([['new', 1], ['show', 1], ['rename', 1], ['delete', 1]]);
    expect(DISCORD_COMMANDS.every((c) => c.description.length <= 100)).toBe(true);
  });

  it('answers /search with a type 4 message holding the results and watch buttons', async () => {
    const bot = makeBot();
    const i = slash('8001', 'search', { query: 'mars landing' });
    await bot.handleInteraction(i);
    const body = callbackFor(i);
    expect(body.type).toBe(4);
    expect(body.data.content).toContain('Mars landing before 2030');
    expect(body.data.content).toContain(`market ${event.markets[0]!.id}`);
    expect(body.data.flags).toBeUndefined();
    expect(body.data.components[0].components[0]).toMatchObject({ type: 2, custom_id: `watch:${event.id}` });
    // Fast: answered in one step, nothing deferred or edited afterwards.
    expect(followUps(i)).toEqual([]);
  });

  it('/login answers a one-time console sign-in link, seen by the caller alone, that signs in once', async () => {
    const bot = makeBot();
    const i = slash('8004', 'login', {}, { guild: '', channel: 'dm4' });
    await bot.handleInteraction(i);
    const content = callbackFor(i).data.content as string;
    const code = decodeURIComponent(/\/app\/login#code=(\S+)/.exec(content)![1]!);
    const first = await supertest(env.app).post('/sessions').send({ loginCode: code }).expect(201);
    expect(first.body.userId).toBe((await findOrCreateChatAccount({ database: env.database }, { kind: 'discord', userId: '8004' })).id);
    await supertest(env.app).post('/sessions').send({ loginCode: code }).expect(401);
  });

  it('an alert in a guild channel creates the channel webhook once and stores a Discord channel; a pause button pauses it', async () => {
    const bot = makeBot();
    const before = api.callsTo('POST', /^\/v10\/channels\/chan-a\/webhooks$/).length;
    const i = slash('8002', 'alert', { market: event.markets[0]!.id, condition: 'down 35', repeat: 'every 60m' }, { channel: 'chan-a' });
    await bot.handleInteraction(i);
    const hooks = api.callsTo('POST', /^\/v10\/channels\/chan-a\/webhooks$/).slice(before);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.body).toEqual({ name: 'Oddswatch' });
    const body = callbackFor(i);
    expect(body.data.content).toContain('Crossing Down 35%');
    const pause = body.data.components[0].components[0];
    expect(pause.custom_id).toMatch(/^pause:/);
    const subscriptionId = pause.custom_id.slice('pause:'.length);

    const account = await findOrCreateChatAccount(env, { kind: 'discord', userId: '8002' });
    const ctx = { database: env.database, config: env.config, logger, account };
    const stored = await getSubscription({ ctx, input: { subscriptionId } });
    expect(stored.channels).toEqual([{ type: 'Discord', settings: { discordWebhookUrl: expect.stringMatching(/\/api\/webhooks\/\d+\/hooktoken\d+$/) } }]);

    // The same channel again, and from a restarted bot (found by GET): the webhook is reused.
    await bot.handleInteraction(slash('8002', 'alert', { market: event.markets[1]!.id, condition: 'up 70' }, { channel: 'chan-a' }));
    await makeBot().handleInteraction(slash('8002', 'alert', { market: event.markets[1]!.id, condition: 'up 80' }, { channel: 'chan-a' }));
    expect(api.callsTo('POST', /^\/v10\/channels\/chan-a\/webhooks$/).length - before).toBe(1);

    const press: RawInteraction = { ...base('8002', 3, { channel: 'chan-a' }), data: { custom_id: pause.custom_id } };
    await bot.handleInteraction(press);
    // The click edits the message it is on (UPDATE_MESSAGE): "Paused ✓" and Resume in place of Pause.
    expect(callbackFor(press).type).toBe(7);
    expect(callbackFor(press).data.content).toMatch(/^Paused ✓\n/);
    expect(callbackFor(press).data.components[0].components[0].custom_id).toBe(`resume:${subscriptionId}`);
    expect((await getSubscription({ ctx, input: { subscriptionId } })).status).toEqual({ enabled: false, reason: 'Paused by user' });
  });

  it('the same alert via Discord, via REST and via the Telegram command layer stores the same rule', async () => {
    const bot = makeBot();
    const token = await discordToken(bot, '8003');
    const auth = { Authorization: `Bearer ${token}` };
    const i = slash('8003', 'alert', { market: event.markets[1]!.id, condition: 'step 10', repeat: 'once' }, { channel: 'chan-b' });
    await bot.handleInteraction(i);
    const subId = /• (\S+):/.exec(callbackFor(i).data.content)![1]!;
    const viaDiscord = (await env.http.get(`/subscription/${subId}`).set(auth).expect(200)).body.subscription;
    expect(viaDiscord.channels[0].type).toBe('Discord');

    const createdId = await subscribe(env, { auth }, viaDiscord.watchlistId, {
      eventId: event.id,
      marketId: event.markets[1]!.id,
      type: 'Crossing Step',
      threshold: 10,
      triggerType: 'One Time',
      channels: viaDiscord.channels,
    });
    const viaRest = (await env.http.get(`/subscription/${createdId}`).set(auth).expect(200)).body.subscription;

    const tgAccount = await findOrCreateChatAccount(env, { kind: 'telegram', userId: '8003' });
    const tgCtx = { database: env.database, config: env.config, logger, account: tgAccount };
    const tgToken = /\n(\S+)\n/.exec((await runCommand(tgCtx, { kind: 'telegram', chatId: 8003, isPrivate: true }, 'token')).text)![1]!;
    const tgReply = await runCommand(tgCtx, { kind: 'telegram', chatId: 8003, isPrivate: true }, `alert ${event.markets[1]!.id} step 10 once`);
    const tgId = /• (\S+):/.exec(tgReply.text)![1]!;
    const viaTelegram = (await env.http.get(`/subscription/${tgId}`).set({ Authorization: `Bearer ${tgToken}` }).expect(200)).body.subscription;

    const rule = (s: Record<string, unknown>) => ({ ...s, subscriptionId: 'x', createdAt: 'x', updatedAt: 'x', channels: 'x', watchlistId: 'x' });
    expect(rule(viaDiscord)).toEqual(rule(viaRest));
    expect(rule(viaDiscord)).toEqual(rule(viaTelegram));
    expect(viaTelegram.channels).toEqual([{ type: 'Telegram', settings: { telegramChatId: 8003 } }]);
  });

  it('answers with the permission message, privately, when the webhook cannot be created', async () => {
    api.forbiddenChannels.add('locked');
    const i = slash('8004', 'alert', { market: event.markets[0]!.id, condition: 'up 50' }, { channel: 'locked' });
    await makeBot().handleInteraction(i);
    expect(callbackFor(i)).toEqual({ type: 4, data: { content: NEED_WEBHOOK_PERMISSION, flags: EPHEMERAL } });
    expect((await runCommand(
      { database: env.database, config: env.config, logger, account: await findOrCreateChatAccount(env, { kind: 'discord', userId: '8004' }) },
      { kind: 'discord', chatId: 'x', isPrivate: true },
      'alerts',
    )).text).toContain('no alerts');
  });

  it('autocompletes markets by question and alerts by id (type 8)', async () => {
    const bot = makeBot();
    const market: RawInteraction = {
      ...base('8005', 4),
      data: { name: 'alert', options: [{ name: 'market', type: 3, value: 'mars landing', focused: true }] },
    };
    await bot.handleInteraction(market);
    const choices = callbackFor(market);
    expect(choices.type).toBe(8);
    expect(choices.data.choices).toEqual(event.markets.map((m) => ({ name: expect.any(String), value: m.id })));
    // #16: a word's first letters are enough, as a person types them.
    const prefix: RawInteraction = { ...base('8005', 4), data: { name: 'alert', options: [{ name: 'market', type: 3, value: 'Mar', focused: true }] } };
    await bot.handleInteraction(prefix);
    // #16 item 6: the label adds the watched outcome's price (no end date in this catalog row).
    expect(callbackFor(prefix).data.choices).toEqual(event.markets.map((m) => ({ name: `${m.question} · Yes 50 %`, value: m.id })));

    const created = slash('8005', 'alert', { market: event.markets[0]!.id, condition: 'below 20' }, { guild: '', channel: 'dm5' });
    await bot.handleInteraction(created);
    const subId = /• (\S+):/.exec(callbackFor(created).data.content)![1]!;
    const id: RawInteraction = { ...base('8005', 4), data: { name: 'pause', options: [{ name: 'id', type: 3, value: subId.slice(0, 6), focused: true }] } };
    await bot.handleInteraction(id);
    expect(callbackFor(id)).toEqual({ type: 8, data: { choices: [{ name: expect.stringContaining('Less Than 20%'), value: subId }] } });
  });

  it('autocomplete labels read "question · outcome price · end date", tell alike markets apart by event, and show alerts without ids', async () => {
    const bot = makeBot();
    const mayor = await seedEvent(env.database, { title: 'Qworble mayor race' });
    const council = await seedEvent(env.database, { title: 'Qworble council vote' });
    await env.database.db.update(catalogMarkets).set({ question: 'Will Qworble win?', outcomePrices: [0.62, 0.38], endDate: new Date('2031-06-30T12:00:00Z') }).where(eq(catalogMarkets.id, mayor.markets[0]!.id));
    await env.database.db.update(catalogMarkets).set({ question: 'Will Qworble win?', outcomePrices: [0.62, 0.38], endDate: new Date('2031-06-30T12:00:00Z') }).where(eq(catalogMarkets.id, council.markets[0]!.id));
    const typed: RawInteraction = { ...base('8007', 4), data: { name: 'alert', options: [{ name: 'market', type: 3, value: 'qworble', focused: true }] } };
    await bot.handleInteraction(typed);
    const choices: { name: string; value: string }[] = callbackFor(typed).data.choices;
    expect(choices.map((c) => [c.value, c.name]).sort()).toEqual(
      [
        [mayor.markets[0]!.id, 'Will Qworble win? · Qworble mayor race · Yes 62 % · ends Jun 30, 2031'],
        [council.markets[0]!.id, 'Will Qworble win? · Qworble council vote · Yes 62 % · ends Jun 30, 2031'],
      ].sort(),
    );

    const made = slash('8007', 'alert', { market: mayor.markets[0]!.id, condition: 'above 70', repeat: 'once' }, { guild: '', channel: 'dm-8007' });
    await bot.handleInteraction(made);
    const alertId = subscriptionIdOf(callbackFor(made).data.content);
    const picking: RawInteraction = { ...base('8007', 4), data: { name: 'pause', options: [{ name: 'id', type: 3, value: 'qworble', focused: true }] } };
    await bot.handleInteraction(picking);
    expect(callbackFor(picking).data.choices).toEqual([{ name: 'Greater Than 70% · Will Qworble win? · once', value: alertId }]);
  });

  it('private replies (token, alerts, inbox, watchlists) are ephemeral', async () => {
    const bot = makeBot();
    for (const name of ['token', 'alerts', 'inbox', 'watchlists']) {
      const i = slash('8006', name);
      await bot.handleInteraction(i);
      expect(callbackFor(i).data.flags, name).toBe(EPHEMERAL);
      // In a server the list itself is the private answer: no "I sent you a private message" there.
      expect(callbackFor(i).data.content, name).not.toBe('I sent you a private message.');
    }
    const help = slash('8006', 'help');
    await bot.handleInteraction(help);
    expect(callbackFor(help).data.content).toContain('/alert');
  });

  it('the bots role registers the commands and survives a failed gateway login', async () => {
    const config = { ...env.config, TELEGRAM_BOT_TOKEN: undefined, DISCORD_TOKEN: 'role-token', DISCORD_APPLICATION_ID: APP, DISCORD_API_URL: api.url, DISCORD_GUILD_ID: 'g-role' };
    const role = await startBotsRole({ database: env.database, config, logger });
    expect(role.discord).toBeDefined();
    expect(role.discordInteractions).toBeUndefined(); // no DISCORD_PUBLIC_KEY
    // Registered in the background; the fake has no gateway, so the login fails and is retried.
    await expect.poll(() => api.callsTo('PUT', new RegExp(`^/v10/applications/${APP}/guilds/g-role/commands$`)).length, { timeout: 5000 }).toBe(1);
    await expect.poll(() => role.status()[0]?.state, { timeout: 5000 }).toBe('backoff');
    await role.stop();
    const none = await startBotsRole({ database: env.database, config: { ...config, DISCORD_TOKEN: undefined }, logger });
    expect(none.discord).toBeUndefined();
    await none.stop();
  });

  it('alerts through the bot\'s channel webhook carry link buttons and Pause and Delete; a foreign webhook gets the links only', async () => {
    const bot = makeBot();
    const create = slash('8101', 'alert', { market: event.markets[0]!.id, condition: 'up 40' }, { channel: 'chan-alerts' });
    await bot.handleInteraction(create);
    const ours = subscriptionIdOf(callbackFor(create).data.content);
    const auth = { Authorization: `Bearer ${await discordToken(bot, '8101')}` };
    const stored = (await env.http.get(`/subscription/${ours}`).set(auth).expect(200)).body.subscription;
    const foreignUrl = api.addForeignWebhook('chan-alerts');
    const foreign = await subscribe(env, { auth }, stored.watchlistId, {
      eventId: event.id,
      marketId: event.markets[0]!.id,
      threshold: 45,
      channels: [{ type: 'Discord', settings: { discordWebhookUrl: foreignUrl } }],
    });

    const account = await findOrCreateChatAccount(env, { kind: 'discord', userId: '8101' });
    const worker = await startWorkerRole({ database: env.database, config: { ...env.config, DISCORD_APPLICATION_ID: APP, PUBLIC_URL: 'https://oddswatch.example' }, logger });
    try {
      for (const [subscriptionId, url] of [
        [ours, stored.channels[0].settings.discordWebhookUrl as string],
        [foreign, foreignUrl],
      ] as const) {
        const payload = {
          type: 'price_notification',
          userId: account.id,
          subscriptionId,
          marketId: event.markets[0]!.id,
          marketQuestion: 'Will it land?',
          polymarketSlug: 'mars-landing',
          subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 40 } } },
          detectedValue: 0.41,
          detectedAt: new Date().toISOString(),
        };
        await writeNotification(env.database.db, {
          accountId: account.id,
          subscriptionId,
          type: 'price_notification',
          payload,
          dedupeKey: `discord-buttons-${subscriptionId}`,
          channels: [{ type: 'Discord', settings: { discordWebhookUrl: url } }],
        });
      }
      const executed = (hookUrl: string) => api.callsTo('POST', new RegExp(`^${new URL(hookUrl).pathname}$`));
      const [sent] = await waitFor(() => executed(stored.channels[0].settings.discordWebhookUrl).length > 0 && executed(stored.channels[0].settings.discordWebhookUrl));
      const [sentForeign] = await waitFor(() => executed(foreignUrl).length > 0 && executed(foreignUrl));
      expect(sent!.query).toBe('wait=true&with_components=true');
      const ids = (call: typeof sent) => call!.body.components.flatMap((row: { components: { custom_id?: string; url?: string; label: string }[] }) => row.components.map((b) => b.custom_id ?? b.label));
      expect(ids(sent)).toEqual(['Open market', 'Chart', `pause:${ours}`, `delete:${ours}`, ...['1h', '8h', '24h'].map((span) => `snooze:${ours}:${span}`)]);
      expect(sentForeign!.query).toBe('wait=true&with_components=true');
      expect(ids(sentForeign)).toEqual(['Open market', 'Chart']);
      expect(api.callsTo('GET', /^\/api\/webhooks\//).every((c) => c.authorization === undefined)).toBe(true);
    } finally {
      await worker.stop();
    }

    // Someone else in the channel presses Pause: not their alert, so "not found", and nothing changes.
    const intruder: RawInteraction = { ...base('8102', 3, { channel: 'chan-alerts' }), data: { custom_id: `pause:${ours}` } };
    await bot.handleInteraction(intruder);
    expect(callbackFor(intruder).data).toMatchObject({ content: expect.stringMatching(/^I can't find that alert/), flags: EPHEMERAL });
    const ctx = { database: env.database, config: env.config, logger, account };
    expect((await getSubscription({ ctx, input: { subscriptionId: ours } })).status.enabled).toBe(true);

    // The owner presses Pause, then Delete, under the alert.
    const pause: RawInteraction = { ...base('8101', 3, { channel: 'chan-alerts' }), data: { custom_id: `pause:${ours}` } };
    await bot.handleInteraction(pause);
    expect(callbackFor(pause)).toMatchObject({ type: 7, data: { content: expect.stringMatching(/^Paused ✓\n/) } });
    expect((await getSubscription({ ctx, input: { subscriptionId: ours } })).status).toEqual({ enabled: false, reason: 'Paused by user' });
    const remove: RawInteraction = { ...base('8101', 3, { channel: 'chan-alerts' }), data: { custom_id: `delete:${ours}` } };
    await bot.handleInteraction(remove);
    expect(callbackFor(remove)).toMatchObject({ type: 7, data: { content: expect.stringMatching(/^Delete this alert and its history\?\n/) } });
    await env.http.get(`/subscription/${ours}`).set(auth).expect(200);
    const yes: RawInteraction = { ...base('8101', 3, { channel: 'chan-alerts' }), data: { custom_id: callbackFor(remove).data.components[0].components[0].custom_id } };
    await bot.handleInteraction(yes);
    expect(callbackFor(yes)).toMatchObject({ type: 7, data: { content: expect.stringMatching(/^Deleted ✓\n/), components: [] } });
    await env.http.get(`/subscription/${ours}`).set(auth).expect(404);
  });

  it('an alert made in a DM is posted in that DM by the bot, with Pause and Delete; the REST API shows a bare Discord channel', async () => {
    const bot = makeBot();
    const where = { guild: '', channel: 'dm-8301' };
    const create = slash('8301', 'alert', { market: event.markets[0]!.id, condition: 'up 55' }, where);
    await bot.handleInteraction(create);
    const subscriptionId = subscriptionIdOf(callbackFor(create).data.content);
    expect(api.callsTo('POST', /\/webhooks$/).filter((c) => c.path.includes('dm-8301'))).toEqual([]); // no webhook in a DM

    // The REST view stays the spec's: no setting of ours; and REST cannot make such a channel.
    const auth = { Authorization: `Bearer ${await discordToken(bot, '8301')}` };
    const shown = (await env.http.get(`/subscription/${subscriptionId}`).set(auth).expect(200)).body.subscription;
    expect(shown.channels.map(({ status: _s, ...c }: { status?: string }) => c)).toEqual([{ type: 'Discord' }]);
    const refused = await env.http
      .post('/subscriptions')
      .set(auth)
      .send({
        watchlistId: shown.watchlistId,
        subscriptionScope: 'Market',
        eventId: event.id,
        marketId: event.markets[0]!.id,
        subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 56 } } },
        channels: [{ type: 'Discord', settings: { discordChannelId: 'dm-8301' } }],
      })
      .expect(400);
    expect(refused.body).toEqual({ error: expect.any(String) });

    const account = await findOrCreateChatAccount(env, { kind: 'discord', userId: '8301' });
    const config = { ...env.config, DISCORD_TOKEN: 'worker-bot-token', DISCORD_API_URL: api.url, PUBLIC_URL: 'https://oddswatch.example' };
    const worker = await startWorkerRole({ database: env.database, config, logger });
    try {
      // What the engine writes when the price crosses 55 %.
      const fired = { marketId: event.markets[0]!.id, question: 'Will it land?', type: 'Crossing Up', percent: 55, price: 0.57 };
      await firePriceAlert(account.id, subscriptionId, fired, { discordChannelId: 'dm-8301' });
      const [posted] = await waitFor(() => {
        const calls = api.callsTo('POST', /^\/v10\/channels\/dm-8301\/messages$/);
        return calls.length > 0 && calls;
      });
      expect(posted!.authorization).toBe('Bot worker-bot-token');
      expect(posted!.body.username).toBeUndefined(); // a bot message: its own name
      expect(posted!.body.embeds[0].title).toContain('Will it land?');
      expect(posted!.body.allowed_mentions).toEqual({ parse: [] });
      const buttons = posted!.body.components.flatMap((row: { components: { custom_id?: string; label: string }[] }) => row.components.map((b) => b.custom_id ?? b.label));
      expect(buttons.slice(0, 4)).toEqual(['Open market', 'Chart', `pause:${subscriptionId}`, `delete:${subscriptionId}`]);
      expect(buttons.slice(4).every((b: string) => b.startsWith(`snooze:${subscriptionId}:`))).toBe(true);
    } finally {
      await worker.stop();
    }

    // The bot's own message: its Pause reaches the bot, from the DM.
    const pause: RawInteraction = { ...base('8301', 3, where), data: { custom_id: `pause:${subscriptionId}` } };
    await bot.handleInteraction(pause);
    expect(callbackFor(pause).data.content).toMatch(/^Paused ✓/);
    const ctx = { database: env.database, config: env.config, logger, caller: { kind: 'system' as const }, account };
    expect((await getSubscription({ ctx, input: { subscriptionId } })).status).toEqual({ enabled: false, reason: 'Paused by user' });
  });

  it('a DM the user closed (Discord 403) disables the channel at once, and says why', async () => {
    const bot = makeBot();
    const where = { guild: '', channel: 'dm-8302' };
    const create = slash('8302', 'alert', { market: event.markets[1]!.id, condition: 'down 30' }, where);
    await bot.handleInteraction(create);
    const subscriptionId = subscriptionIdOf(callbackFor(create).data.content);
    api.forbiddenChannels.add('dm-8302');
    const account = await findOrCreateChatAccount(env, { kind: 'discord', userId: '8302' });
    const config = { ...env.config, DISCORD_TOKEN: 'worker-bot-token', DISCORD_API_URL: api.url };
    const worker = await startWorkerRole({ database: env.database, config, logger });
    const auth = { Authorization: `Bearer ${await discordToken(bot, '8302')}` };
    try {
      const fired = { marketId: event.markets[1]!.id, question: 'Will it land later?', type: 'Crossing Down', percent: 30, price: 0.25 };
      await firePriceAlert(account.id, subscriptionId, fired, { discordChannelId: 'dm-8302' });
      const [health] = await waitFor(async () => {
        const body = (await env.http.get(`/subscription/${subscriptionId}/channels/health`).set(auth).expect(200)).body;
        return body.channels[0].state === 'disabled' && body.channels;
      });
      expect(health).toMatchObject({
        type: 'Discord',
        state: 'disabled',
        disabledReason: 'Discord refused the direct message: the user blocked the bot or takes no direct messages (HTTP 403)',
      });
    } finally {
      await worker.stop();
      api.forbiddenChannels.delete('dm-8302');
    }
  });

  it('defers a slow command (type 5) and puts its answer in place of the placeholder', async () => {
    api.delays.push({ path: /^\/v10\/channels\/chan-slow\/webhooks$/, ms: 300 });
    const i = slash('8103', 'alert', { market: event.markets[0]!.id, condition: 'up 65' }, { channel: 'chan-slow' });
    await makeBot(undefined, 50).handleInteraction(i);
    expect(callbackFor(i)).toEqual({ type: 5, data: { flags: EPHEMERAL } }); // private, as the answer about one's own alert will be
    const [edit, ...more] = followUps(i);
    expect(more).toEqual([]);
    expect(edit).toMatchObject({ method: 'PATCH', path: '/messages/@original' });
    expect(edit!.body.content).toContain('Crossing Up 65%');
    expect(edit!.body.components[0].components[0].custom_id).toMatch(/^pause:/);
    const callbackAt = api.calls.findIndex((c) => c.path.endsWith(`/${i.token}/callback`));
    expect(callbackAt).toBeLessThan(api.calls.findIndex((c) => c.method === 'PATCH' && c.path.includes(i.token)));
  });

  it('defers privately when the answer is private: a slow /alerts, and a slow button click', async () => {
    const create = slash('8104', 'alert', { market: event.markets[1]!.id, condition: 'below 15' }, { guild: '', channel: 'dm-8104' });
    // Made with the default deferral delay: on a busy machine it could take more than 50 ms itself.
    await makeBot().handleInteraction(create);
    const bot = makeBot(undefined, 50);
    const subscriptionId = subscriptionIdOf(callbackFor(create).data.content);

    const list = slash('8104', 'alerts');
    await withSlowSubscriptions(() => bot.handleInteraction(list), () => callbacksOf(list).length > 0);
    expect(callbackFor(list)).toEqual({ type: 5, data: { flags: EPHEMERAL } });
    expect(followUps(list)).toEqual([{ method: 'PATCH', path: '/messages/@original', body: { content: expect.stringContaining(' · active · '), components: expect.any(Array) } }]);

    const press: RawInteraction = { ...base('8104', 3, { guild: '', channel: 'dm-8104' }), data: { custom_id: `pause:${subscriptionId}` } };
    await withSlowSubscriptions(() => bot.handleInteraction(press), () => callbacksOf(press).length > 0);
    expect(callbackFor(press)).toEqual({ type: 5, data: { flags: EPHEMERAL } });
    expect(followUps(press)[0]!.body.content).toMatch(/^Paused ✓\n/);
    const account = await findOrCreateChatAccount(env, { kind: 'discord', userId: '8104' });
    const ctx = { database: env.database, config: env.config, logger, account };
    expect((await getSubscription({ ctx, input: { subscriptionId } })).status).toEqual({ enabled: false, reason: 'Paused by user' });
  });

  it('a slow answer that turns out private after a public placeholder goes in a private follow-up, and the placeholder is deleted', async () => {
    // Only help and search answer publicly; a failure of theirs is private. The answerer itself, at that moment:
    const i = slash('8105', 'search', { query: 'x' });
    const bodies: object[] = [];
    const send = answerer({
      rest: makeBot().rest,
      applicationId: APP,
      interaction: i,
      respond: async (body) => void bodies.push(body),
      privateByDefault: false,
      deferAfterMs: 0,
      placeholderRetryMs: 0,
      log: logger,
    });
    await waitFor(() => bodies.length > 0);
    expect(bodies).toEqual([{ type: 5 }]);
    await send('That search failed', true);
    expect(followUps(i)).toEqual([
      { method: 'POST', path: '', body: { content: 'That search failed', flags: EPHEMERAL } },
      { method: 'DELETE', path: '/messages/@original', body: undefined },
    ]);
  });

  it('answers in one step after all when the deferral itself was refused, and logs that without the token', async () => {
    api.rejectDeferrals = true;
    const lines: string[] = [];
    const capture = createLogger('debug', { write: (line: string) => lines.push(line) });
    try {
      const list = slash('8106', 'alerts');
      const bot = createDiscordBot({ token: 'discord-bot-token', applicationId: APP, apiUrl: api.url, deferAfterMs: 50, deps: { database: env.database, config: env.config, logger: capture } });
      await withSlowSubscriptions(() => bot.handleInteraction(list), () => callbacksOf(list).length > 0);
      const warning = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'discord: deferring the answer failed');
      expect(warning.err).toMatchObject({ status: 400, code: 50035 });
      expect(lines.join('\n')).not.toContain(list.token);
      const callbacks = api.callsTo('POST', new RegExp(`^/v10/interactions/${list.id}/${list.token}/callback$`)).map((c) => c.body);
      expect(callbacks).toEqual([{ type: 5, data: { flags: EPHEMERAL } }, { type: 4, data: { content: expect.stringContaining('no alerts'), flags: EPHEMERAL } }]);
      expect(followUps(list)).toEqual([]);
    } finally {
      api.rejectDeferrals = false;
    }
  });

  describe('interactions over HTTP (POST /discord/interactions)', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const publicKeyHex = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('hex');

    /** The real API app with the endpoint mounted, as src/service.ts does. */
    function appWith(bot: ReturnType<typeof makeBot>) {
      const endpoint = discordInteractionsEndpoint(publicKeyHex, bot, logger);
      return createApp({ config: env.config, database: env.database, logger, readiness: async () => ({ ready: true }), webhooks: [endpoint] }).app;
    }
    /** POSTs `raw` as Discord would: signed (timestamp + body) with `key`. */
    function post(app: ReturnType<typeof appWith>, raw: string, key: KeyObject = privateKey, signedBody = raw, atMs = Date.now()) {
      const timestamp = String(Math.floor(atMs / 1000));
      const signature = sign(null, Buffer.from(timestamp + signedBody), key).toString('hex');
      return supertest(app)
        .post('/discord/interactions')
        .set('content-type', 'application/json')
        .set('X-Signature-Ed25519', signature)
        .set('X-Signature-Timestamp', timestamp)
        .send(raw);
    }

    /** Posts the interaction while the database is slow: the HTTP answer is the deferral, given before the data. */
    async function postWhileSlow(app: ReturnType<typeof appWith>, interaction: RawInteraction) {
      let answered = false;
      return withSlowSubscriptions(
        async () => {
          const res = await post(app, JSON.stringify(interaction)).expect(200);
          answered = true;
          return res;
        },
        () => answered,
      );
    }

    it('answers PING with PONG and refuses bad signatures with 401 {error}', async () => {
      const app = appWith(makeBot());
      const ping = JSON.stringify({ id: 'p1', token: 'ptoken', type: 1, application_id: APP });
      expect((await post(app, ping).expect(200)).body).toEqual({ type: 1 });

      const stranger = generateKeyPairSync('ed25519').privateKey;
      const refused = [
        await post(app, ping, stranger), // signed by someone else
        await post(app, ping.replace('p1', 'p2'), privateKey, ping), // body changed after signing
        await supertest(app).post('/discord/interactions').set('content-type', 'application/json').send(ping), // unsigned
        await supertest(app).post('/discord/interactions').set('X-Signature-Ed25519', 'zz').set('X-Signature-Timestamp', '1').send(ping),
        await post(app, ping, privateKey, ping, Date.now() - 10 * 60_000), // well signed, but 10 minutes old: a replay
      ];
      for (const res of refused) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
      for (const raw of ['{"type":', 'null']) {
        const bad = await post(app, raw);
        expect(bad.status).toBe(400);
        expect(bad.body).toEqual({ error: expect.any(String) });
      }
    });

    it('hands commands to handleInteraction and answers in the HTTP response, not the REST callback', async () => {
      const app = appWith(makeBot());
      const help = slash('8201', 'help');
      const res = await post(app, JSON.stringify(help)).expect(200);
      expect(res.body).toMatchObject({ type: 4, data: { content: expect.stringContaining('/alert') } });
      const list = slash('8201', 'alerts');
      expect((await post(app, JSON.stringify(list)).expect(200)).body).toMatchObject({ type: 4, data: { flags: EPHEMERAL } });
      expect(api.calls.filter((c) => c.path.includes(help.token) || c.path.includes(list.token))).toEqual([]);
    });

    it('a slow command answers "thinking…" over HTTP and its answer then replaces it through the webhook', async () => {
      const app = appWith(makeBot(undefined, 50));
      const list = slash('8202', 'alerts');
      const res = await postWhileSlow(app, list);
      expect(res.body).toEqual({ type: 5, data: { flags: EPHEMERAL } });
      await waitFor(() => followUps(list).length > 0);
      expect(followUps(list)).toEqual([{ method: 'PATCH', path: '/messages/@original', body: { content: expect.stringContaining('no alerts') } }]);
      expect(api.callsTo('POST', new RegExp(`^/v10/interactions/${list.id}/`))).toEqual([]);
    });

    it('edits the placeholder once more when Discord has not stored it yet (404 on the first edit)', async () => {
      const bot = createDiscordBot({ token: 'discord-bot-token', applicationId: APP, apiUrl: api.url, deferAfterMs: 50, placeholderRetryMs: 20, deps: { database: env.database, config: env.config, logger } });
      const app = appWith(bot);
      api.unknownOriginalEdits = 1;
      const list = slash('8203', 'alerts');
      const res = await postWhileSlow(app, list);
      expect(res.body).toEqual({ type: 5, data: { flags: EPHEMERAL } });
      await waitFor(() => followUps(list).length >= 2);
      expect(followUps(list)).toEqual([
        { method: 'PATCH', path: '/messages/@original', body: { content: expect.stringContaining('no alerts') } },
        { method: 'PATCH', path: '/messages/@original', body: { content: expect.stringContaining('no alerts') } },
      ]);
      expect(api.unknownOriginalEdits).toBe(0);
    });

    it('the bots role offers the endpoint when DISCORD_PUBLIC_KEY is set', async () => {
      expect(() => parseConfig({ DISCORD_PUBLIC_KEY: 'not-a-key' })).toThrow(ConfigError);
      const parsed = parseConfig({ ...TEST_SETTINGS, DISCORD_TOKEN: 'role-token', DISCORD_APPLICATION_ID: APP, DISCORD_API_URL: api.url, DISCORD_PUBLIC_KEY: publicKeyHex });
      const config = { ...env.config, ...parsed, ROLES: env.config.ROLES };
      const role = await startBotsRole({ database: env.database, config, logger });
      try {
        expect(role.discordInteractions?.path).toBe('/discord/interactions');
        const app = createApp({ config, database: env.database, logger, readiness: async () => ({ ready: true }), webhooks: [role.discordInteractions!] }).app;
        expect((await post(app, JSON.stringify({ id: 'p3', token: 'ptoken3', type: 1 })).expect(200)).body).toEqual({ type: 1 });
      } finally {
        await role.stop();
      }
    });
  });
});

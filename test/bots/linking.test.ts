import { eq, sql } from 'drizzle-orm';
import type { Update } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiscordBot, EPHEMERAL, type RawInteraction } from '../../src/bots/discord/index.js';
import { createTelegramBot } from '../../src/bots/telegram/index.js';
import { accounts, linkCodes } from '../../src/db/schema/index.js';
import { LinkCode, Me } from '../../src/http/response-schemas.js';
import { createLogger } from '../../src/logger.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { onlyCallback, startFakeDiscordApi, type FakeDiscordApi } from './fake-discord-api.js';
import { startFakeBotApi, type FakeBotApi } from './fake-bot-api.js';

const TOKEN = '123456:TEST-token';
const APP = '111222333';
const logger = createLogger('silent');
let env: TestEnv;
let telegramApi: FakeBotApi;
let discordApi: FakeDiscordApi;
let telegram: ReturnType<typeof createTelegramBot>;
let discord: ReturnType<typeof createDiscordBot>;
let updateId = 1;
let interactionId = 1;

beforeAll(async () => {
  env = await createTestEnv();
  telegramApi = await startFakeBotApi(TOKEN);
  discordApi = await startFakeDiscordApi(APP);
  const deps = { database: env.database, config: env.config, logger };
  telegram = createTelegramBot({ token: TOKEN, apiRoot: telegramApi.url, deps });
  await telegram.init();
  discord = createDiscordBot({ token: 'discord-bot-token', applicationId: APP, apiUrl: discordApi.url, deps });
});
afterAll(async () => {
  await telegramApi?.close();
  await discordApi?.close();
  await env?.close();
});

/** What the Telegram user reads after sending `text` in their private chat with the bot. */
async function telegramSays(fromId: number, text: string): Promise<string> {
  const before = telegramApi.callsTo('sendMessage').length;
  const update = {
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
  await telegram.handleUpdate(update);
  const sent = telegramApi.callsTo('sendMessage').slice(before);
  expect(sent).toHaveLength(1);
  return sent[0]!.body.text as string;
}

/** What the Discord user reads after the slash command (in a server channel), and whether only they see it. */
async function discordSays(userId: string, name: string, options: Record<string, string> = {}): Promise<{ text: string; ephemeral: boolean }> {
  const id = String(interactionId++);
  const interaction: RawInteraction = {
    id,
    token: `itoken${id}`,
    type: 2,
    application_id: APP,
    channel_id: 'c1',
    guild_id: 'g1',
    member: { user: { id: userId } },
    data: { name, options: Object.entries(options).map(([n, value]) => ({ name: n, type: 3, value })) },
  };
  await discord.handleInteraction(interaction);
  const body = onlyCallback(discordApi, interaction);
  return { text: body.data.content, ephemeral: (body.data.flags & EPHEMERAL) === EPHEMERAL };
}

async function newCode(a: TestAccount): Promise<string> {
  const res = await env.http.post('/links').set(a.auth).expect(201);
  return LinkCode.parse(res.body).code;
}

const me = async (a: TestAccount) => Me.parse((await env.http.get('/me').set(a.auth).expect(200)).body);
const accountOf = async (column: 'telegramUserId' | 'discordUserId', userId: string) =>
  (await env.database.db.select({ id: accounts.id }).from(accounts).where(eq(accounts[column], userId)))[0]?.id;

describe(`account linking over REST and both bots (${engineName})`, () => {
  it('POST /links answers a code for 10 minutes; /link in Telegram joins the account at once', async () => {
    const a = await env.newAccount();
    const before = Date.now();
    const res = await env.http.post('/links').set(a.auth).expect(201);
    const { code, expiresAt } = LinkCode.parse(res.body);
    expect(code).toMatch(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
    expect(Date.parse(expiresAt) - before).toBeGreaterThan(9.9 * 60_000);
    expect(Date.parse(expiresAt) - before).toBeLessThanOrEqual(10 * 60_000 + 5_000);
    // Only a hash of the code is kept.
    const stored = await env.database.db.select().from(linkCodes).where(eq(linkCodes.accountId, a.userId));
    expect(JSON.stringify(stored)).not.toContain(code.replace('-', ''));

    await env.http.post('/watchlists').set(a.auth).send({ name: 'Made over REST' }).expect(201);
    // The chat user has met the bot before (an account of their own, empty), then links: lower case works too.
    expect(await telegramSays(8101, '/watchlists')).toMatch(/no watchlists|don't have any/i);
    const chatOnly = await accountOf('telegramUserId', '8101');
    expect(await telegramSays(8101, `/link ${code.toLowerCase()}`)).toBe(
      'Linked: from now on you act here as the account that made this code: its alerts, watchlists and inbox.',
    );
    expect((await me(a)).links).toEqual({ telegram: '8101', discord: null });
    expect(await accountOf('telegramUserId', '8101')).toBe(a.userId);
    expect(await env.database.db.select().from(accounts).where(eq(accounts.id, chatOnly!))).toEqual([]);
    // The very next message acts as the REST account.
    expect(await telegramSays(8101, '/watchlists')).toContain('Made over REST');
  });

  it('a used code is refused to anyone else, and an unknown one is named so', async () => {
    const a = await env.newAccount();
    const code = await newCode(a);
    expect(await telegramSays(8201, `/link ${code}`)).toMatch(/^Linked/);
    expect(await telegramSays(8202, `/link ${code}`)).toMatch(/already used; a code works once\. Make a new one with POST \/links/);
    expect((await discordSays('9202', 'link', { code })).text).toMatch(/already used/);
    expect(await telegramSays(8202, '/link ZZZZZ-ZZZZZ')).toMatch(/I don't know that link code/);
    expect(await telegramSays(8202, '/link not-a-code')).toMatch(/I don't know that link code/);
    expect(await telegramSays(8202, '/link')).toBe('Usage: /link <code>');
    expect((await me(a)).links).toEqual({ telegram: '8201', discord: null });
    expect(await accountOf('discordUserId', '9202')).not.toBe(a.userId);
  });

  it('two users sending the same code at once: one is linked, the other told it was used', async () => {
    const a = await env.newAccount();
    const code = await newCode(a);
    const replies = await Promise.all([
      discordSays('9251', 'link', { code }),
      discordSays('9252', 'link', { code }),
    ]);
    expect(replies.map((r) => r.text.split(':')[0]).sort()).toEqual(['Linked', 'That link code was already used; a code works once. Make a new one with POST /links (or in the console under Settings).']);
    expect((await me(a)).links.discord).toMatch(/^925[12]$/);
  });

  it('an expired code: the chat reply says so and nothing changes', async () => {
    const a = await env.newAccount();
    const code = await newCode(a);
    await env.database.db.update(linkCodes).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(linkCodes.accountId, a.userId));
    expect(await telegramSays(8301, `/link ${code}`)).toMatch(/That link code has expired \(a code lasts 10 minutes\)/);
    const reply = await discordSays('9301', 'link', { code });
    expect(reply).toEqual({ text: expect.stringMatching(/expired/), ephemeral: true });
    expect((await me(a)).links).toEqual({ telegram: null, discord: null });
  });

  it('/link in Discord links the Discord user; GET /me shows both links', async () => {
    const a = await env.newAccount();
    expect(await telegramSays(8401, `/link ${await newCode(a)}`)).toMatch(/^Linked/);
    const reply = await discordSays('9401', 'link', { code: await newCode(a) });
    expect(reply.ephemeral).toBe(true);
    expect(reply.text).toMatch(/^Linked/);
    expect((await me(a)).links).toEqual({ telegram: '8401', discord: '9401' });
    expect((await discordSays('9401', 'link', { code: await newCode(a) })).text).toMatch(/already linked to that account/);
  });

  it('an account already linked to another user of the platform refuses; unlinking frees it and the same code works', async () => {
    const a = await env.newAccount();
    expect(await telegramSays(8501, `/link ${await newCode(a)}`)).toMatch(/^Linked/);
    const code = await newCode(a);
    expect(await telegramSays(8502, `/link ${code}`)).toMatch(/already linked to another Telegram user\. Unlink them first \(DELETE \/links\/telegram/);
    expect((await me(a)).links.telegram).toBe('8501');

    await env.http.delete('/links/telegram').set(a.auth).expect(200, {});
    expect((await me(a)).links.telegram).toBeNull();
    // The unlinked user is a stranger again at once: their next message gets an account of their own.
    expect(await telegramSays(8501, '/watchlists')).not.toContain('Made over REST');
    expect(await accountOf('telegramUserId', '8501')).not.toBe(a.userId);
    expect(await telegramSays(8502, `/link ${code}`)).toMatch(/^Linked/);
    expect((await me(a)).links.telegram).toBe('8502');
  });

  it('a new code replaces the unused one', async () => {
    const a = await env.newAccount();
    const first = await newCode(a);
    const second = await newCode(a);
    expect(await telegramSays(8601, `/link ${first}`)).toMatch(/I don't know that link code/);
    expect(await telegramSays(8601, `/link ${second}`)).toMatch(/^Linked/);
  });

  it('a chat account with alerts or watchlists only it can reach is not stranded: refused, then kept once it has a token', async () => {
    const a = await env.newAccount();
    const code = await newCode(a);
    await telegramSays(8701, '/watchlist new Chat only');
    const own = await accountOf('telegramUserId', '8701');
    expect(await telegramSays(8701, `/link ${code}`)).toMatch(
      /^Not linked: your account here has 1 watchlist that only this chat can reach.*Delete them first \(\/alerts, \/watchlists\), or keep a way into this account with \/token/,
    );
    expect(await accountOf('telegramUserId', '8701')).toBe(own);
    expect((await me(a)).links.telegram).toBeNull();

    expect(await telegramSays(8701, '/token')).toContain('Your API token');
    expect(await telegramSays(8701, `/link ${code}`)).toMatch(/^Linked: .*Your previous account keeps its alerts and watchlists/);
    expect(await accountOf('telegramUserId', '8701')).toBe(a.userId);
    const [kept] = await env.database.db.select().from(accounts).where(eq(accounts.id, own!));
    expect(kept).toMatchObject({ telegramUserId: null });
  });

  it('DELETE /links/{platform}: 404 when nobody is linked, 400 for another platform; another account cannot unlink', async () => {
    const a = await env.newAccount();
    const b = await env.newAccount();
    expect(await telegramSays(8801, `/link ${await newCode(a)}`)).toMatch(/^Linked/);
    const none = await env.http.delete('/links/discord').set(a.auth).expect(404);
    expect(none.body).toEqual({ error: 'No discord user is linked to this account' });
    const bad = await env.http.delete('/links/slack').set(a.auth).expect(400);
    expect(bad.body.error).toMatch(/telegram or discord/);
    await env.http.delete('/links/telegram').set(b.auth).expect(404);
    expect((await me(a)).links.telegram).toBe('8801');
    await env.http.post('/links').expect(401);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Update } from 'grammy/types';
import { createDiscordBot, type RawInteraction } from '../../src/bots/discord/index.js';
import { createTelegramBot } from '../../src/bots/telegram/index.js';
import { startWorkerRole } from '../../src/delivery/role.js';
import { createLogger } from '../../src/logger.js';
import { startEngineRole, type EngineRole } from '../../src/runner/role.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { waitFor } from '../support/wait.js';
import { movePrice, savedPrice, seedFromSimulator } from '../runner/helpers.js';
import { startSimulator } from '../venue/support.js';
import { startFakeBotApi, type FakeBotApi } from './fake-bot-api.js';
import { onlyCallback, startFakeDiscordApi, type FakeDiscordApi } from './fake-discord-api.js';

// The guided alert to the end: set up by taps only, then a price move in the venue simulator, and
// the alert message arrives in the chat the flow was started in, on Telegram and on Discord.

const TOKEN = '123456:TEST-token';
const APP = '111222333';
const logger = createLogger('silent');
let env: TestEnv;
let tg: FakeBotApi;
let dc: FakeDiscordApi;
let sim: Awaited<ReturnType<typeof startSimulator>>;
let engine: EngineRole | undefined;
let worker: { stop(): Promise<void> } | undefined;

beforeAll(async () => {
  env = await createTestEnv();
  tg = await startFakeBotApi(TOKEN);
  dc = await startFakeDiscordApi(APP);
  sim = await startSimulator();
});
afterAll(async () => {
  await worker?.stop();
  await engine?.stop();
  await sim?.sim.stop();
  await tg?.close();
  await dc?.close();
  await env?.close();
});

type Button = { label: string; data: string };
const find = (buttons: Button[][], label: string) => buttons.flat().find((b) => b.label === label)!.data;

describe('a guided alert fires into the chat it was made in', () => {
  it('Telegram and Discord: taps only, a move across the threshold, the alert message in that chat', async () => {
    const [market] = await seedFromSimulator(env.database, sim.sim.state, 1);
    const m = market!;
    const config = { ...env.config, TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_URL: tg.url, DISCORD_APPLICATION_ID: APP };
    engine = await startEngineRole({ database: env.database, config: env.config, logger, clobUrl: sim.urls.clobUrl, clobWsUrl: sim.urls.clobWsUrl });
    worker = await startWorkerRole({ database: env.database, config, logger });
    const query = m.question.split(/\s+/).slice(0, 4).join(' ');

    // Telegram, a private chat.
    const telegram = createTelegramBot({ token: TOKEN, apiRoot: tg.url, deps: { database: env.database, config, logger } });
    await telegram.init();
    let updateId = 1;
    const from = { id: 7301, is_bot: false, first_name: 'U' };
    const chat = { id: 7301, type: 'private' as const, first_name: 'U' };
    const keyboard = (body: Record<string, any>): Button[][] =>
      body.reply_markup.inline_keyboard.map((row: { text: string; callback_data: string }[]) => row.map((b) => ({ label: b.text, data: b.callback_data })));
    const tap = (data: string, messageId: number): Update =>
      ({ update_id: updateId++, callback_query: { id: `cb${updateId}`, from, chat_instance: 'ci', data, message: { message_id: messageId, date: 1, chat, text: 'x' } } }) as Update;
    for (const text of ['/start', `/search ${query}`]) {
      await telegram.handleUpdate({ update_id: updateId++, message: { message_id: updateId, date: 1, chat, from, text, entities: [{ type: 'bot_command', offset: 0, length: text.split(' ')[0]!.length }] } } as Update);
    }
    const results = keyboard(tg.callsTo('sendMessage').at(-1)!.body);
    await telegram.handleUpdate(tap(find(results, 'Alert 1'), 2));
    const flowMessage = tg.callsTo('sendMessage').length;
    await telegram.handleUpdate(tap(find(keyboard(tg.callsTo('sendMessage').at(-1)!.body), 'Rises above'), flowMessage));
    await telegram.handleUpdate(tap(find(keyboard(tg.callsTo('editMessageText').at(-1)!.body), '55%'), flowMessage));
    await telegram.handleUpdate(tap(find(keyboard(tg.callsTo('editMessageText').at(-1)!.body), 'Save'), flowMessage));
    expect(tg.callsTo('editMessageText').at(-1)!.body.text).toMatch(/^Alert saved: Yes rises above 55%/);

    // Discord, a server channel: the same market, saved to the channel's webhook.
    const discord = createDiscordBot({ token: 'discord-bot-token', applicationId: APP, apiUrl: dc.url, deps: { database: env.database, config, logger } });
    let nextId = 1;
    const interaction = (type: number, data: RawInteraction['data']): RawInteraction => {
      const id = `fire${nextId++}`;
      return { id, token: `t${id}`, type, application_id: APP, guild_id: 'g7', channel_id: 'fire-chan', member: { user: { id: '8301' } }, data };
    };
    const buttonsOf = (body: any): Button[][] => body.data.components.map((r: { components: { label: string; custom_id: string }[] }) => r.components.map((b) => ({ label: b.label, data: b.custom_id })));
    const run = async (i: RawInteraction) => {
      await discord.handleInteraction(i);
      return onlyCallback(dc, i);
    };
    let shown = await run(interaction(2, { name: 'search', options: [{ name: 'query', type: 3, value: query }] }));
    for (const label of ['Alert 1', 'Rises above', '55%', 'Save']) shown = await run(interaction(3, { custom_id: find(buttonsOf(shown), label) }));
    expect(shown.data.content).toMatch(/^Alert saved: Yes rises above 55%.*this Discord channel/);
    const hook = dc.calls.find((c) => c.method === 'POST' && /^\/v10\/channels\/fire-chan\/webhooks$/.test(c.path));
    expect(hook).toBeDefined();

    // The price moves: known below the threshold first, then across it.
    const sentBefore = tg.callsTo('sendMessage').length;
    await movePrice(sim.urls.controlUrl, m.id, 0.4);
    await waitFor(async () => (await savedPrice(env.database, m.tokenIds[0])) === 0.4);
    await movePrice(sim.urls.controlUrl, m.id, 0.7);
    const alert = await waitFor(() => tg.callsTo('sendMessage').slice(sentBefore).find((c) => c.body.chat_id === 7301 && String(c.body.text).includes(m.question)));
    expect(alert.body.text).toMatch(/55 ?%/);
    const posted = await waitFor(() => dc.calls.find((c) => c.method === 'POST' && /^\/api\/webhooks\//.test(c.path)));
    expect(JSON.stringify(posted.body)).toContain(m.question);
    expect(tg.refused).toEqual([]);
    expect(dc.refused).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBotsRole } from '../../src/bots/role.js';
import { createLogger } from '../../src/logger.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { startFakeDiscordGateway, type FakeDiscordGateway } from './fake-discord-gateway.js';

const APP = '4242';
const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
let env: TestEnv;
let discord: FakeDiscordGateway;

beforeAll(async () => {
  env = await createTestEnv();
  discord = await startFakeDiscordGateway(APP);
});
afterAll(async () => {
  await discord?.close();
  await env?.close();
});

describe('the Discord bot over a (fake) gateway', () => {
  it('registers the commands, connects in the background, answers a gateway interaction, and closes the session on stop', async () => {
    const config = { ...env.config, TELEGRAM_BOT_TOKEN: undefined, DISCORD_TOKEN: 'gateway-token', DISCORD_APPLICATION_ID: APP, DISCORD_API_URL: discord.url };
    const role = await startBotsRole({ database: env.database, config, logger });
    try {
      await expect.poll(() => role.status()[0]?.state, { timeout: 10_000 }).toBe('connected');
      expect(role.status()[0]).toMatchObject({ platform: 'discord', mode: 'gateway', failures: 0 });
      expect(discord.rest).toContain(`PUT /v10/applications/${APP}/commands`);
      expect(discord.sessions()).toBe(1);

      discord.dispatch('INTERACTION_CREATE', { id: 'i-1', token: 'itoken', type: 2, application_id: APP, channel_id: 'dm', user: { id: '9001' }, data: { name: 'help' } });
      await expect.poll(() => discord.rest.includes('POST /v10/interactions/i-1/itoken/callback'), { timeout: 5000 }).toBe(true);
    } finally {
      const t = Date.now();
      await role.stop();
      expect(Date.now() - t).toBeLessThan(3000);
    }
    await expect.poll(() => discord.sessions(), { timeout: 3000 }).toBe(0);
    expect(role.status()[0]?.state).toBe('stopped');
  });
});

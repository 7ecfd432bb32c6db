import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { insertAccountWithToken } from '../../src/services/accounts/index.js';
import { startService } from '../../src/service.js';
import { TEST_SETTINGS } from '../support/context.js';
import { createTestDatabase } from '../support/db.js';
import { expectNothingFor } from '../support/wait.js';
import { startBotsRole } from '../../src/bots/role.js';
import { closedPort, conflictingBotApi, hangingServer, refusingServer, type BadPlatform } from './unreachable-platform.js';

const TELEGRAM_TOKEN = '123456:SECRET-telegram-token';
const DISCORD_TOKEN = 'SECRET.discord.token';
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** The whole service (api + bots) in this process, with both bots pointed at `platform`. */
async function serviceAgainst(platform: BadPlatform) {
  const database = await createTestDatabase();
  await insertAccountWithToken(database.db, { isAdmin: true }); // not a first start: nothing printed
  const dataDir = await mkdtemp(path.join(tmpdir(), 'oddswatch-bots-down-'));
  dirs.push(dataDir);
  const config = parseConfig({
    ...TEST_SETTINGS,
    LOG_LEVEL: 'info',
    PORT: '0',
    ROLES: 'api,bots',
    DATA_DIR: dataDir,
    TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
    TELEGRAM_API_URL: platform.url,
    DISCORD_TOKEN,
    DISCORD_APPLICATION_ID: '4242',
    DISCORD_API_URL: platform.url,
  });
  const raw: string[] = [];
  const logger = createLogger('info', new Writable({ write: (chunk, _enc, done) => (raw.push(...String(chunk).split('\n').filter(Boolean)), done()) }));
  // Start resolving at all shows it did not wait for the bots: these platforms never let them connect.
  const service = await startService(config, logger, { database });
  const readyz = async () => {
    const res = await fetch(`${service.url}/readyz`);
    return { status: res.status, body: (await res.json()) as { status: string; details: { bots: Record<string, { state: string; lastError?: string; mode: string }> } } };
  };
  const metrics = async () => (await fetch(`${service.url}/metrics`)).text();
  const logs = () => raw.map((l) => JSON.parse(l) as LogLine);
  /**
   * Stops the service; answers the bots' log lines written while it stopped. A stop that waited
   * for a pending connect attempt to time out, or for the backoff's next attempt, shows there.
   */
  const stop = async () => {
    const before = logs().length;
    await service.stop();
    const during = logs().slice(before).filter((l) => String(l.component ?? '').endsWith('-bot'));
    await database.drop();
    return during;
  };
  return { service, readyz, metrics, stop, raw, logs };
}

const stateOf = async (readyz: () => Promise<{ body: { details: { bots: Record<string, { state: string }> } } }>, platform: string) =>
  (await readyz()).body.details.bots[platform]?.state;

describe('a chat platform never takes the service down', () => {
  it('unreachable (connection refused): the API is ready at once, both bots back off, stop is prompt', async () => {
    const platform = await closedPort();
    const s = await serviceAgainst(platform);
    try {
      // Ready while the bots are still trying.
      const first = await s.readyz();
      expect(first.status).toBe(200);
      expect(first.body.status).toBe('ready');
      expect(['starting', 'backoff']).toContain(first.body.details.bots.telegram?.state);
      await expect.poll(() => stateOf(s.readyz, 'telegram'), { timeout: 10_000 }).toBe('backoff');
      await expect.poll(() => stateOf(s.readyz, 'discord'), { timeout: 10_000 }).toBe('backoff');
      const { body } = await s.readyz();
      expect(body.details.bots.telegram).toMatchObject({ mode: 'polling', lastError: expect.stringContaining('ECONNREFUSED') });
      expect(body.details.bots.discord).toMatchObject({ mode: 'gateway', lastError: expect.stringContaining('ECONNREFUSED') });
      const metrics = await s.metrics();
      expect(metrics).toContain('oddswatch_bot_state{platform="telegram",mode="polling",state="backoff"} 1');
      expect(metrics).toContain('oddswatch_bot_state{platform="discord",mode="gateway",state="backoff"} 1');
      expect(metrics).toContain('oddswatch_bot_state{platform="telegram",mode="polling",state="connected"} 0');
      // Each failed attempt is one warning, with the reason, and no secret anywhere.
      const warnings = s.logs().filter((l) => l.level === 40 && l.msg.includes('could not connect'));
      expect(warnings.length).toBeGreaterThanOrEqual(2);
      expect(warnings[0]).toMatchObject({ attempt: 1, error: expect.any(String) });
    } finally {
      // Prompt: the stop ends the backoff's pause, no further attempt is made or waited for.
      const during = await s.stop();
      expect(during.filter((l) => l.msg.includes('could not connect'))).toEqual([]);
      await platform.close();
    }
    expect(s.raw.join('\n')).not.toContain(TELEGRAM_TOKEN);
    expect(s.raw.join('\n')).not.toContain(DISCORD_TOKEN);
  });

  it('hanging (accepts and never answers): the API is ready at once, bots show starting, stop is prompt', async () => {
    const platform = await hangingServer();
    const s = await serviceAgainst(platform);
    try {
      const { status, body } = await s.readyz();
      expect(status).toBe(200);
      expect(body.details.bots.telegram?.state).toBe('starting');
      expect(body.details.bots.discord?.state).toBe('starting');
      expect(await s.metrics()).toContain('oddswatch_bot_state{platform="telegram",mode="polling",state="starting"} 1');
    } finally {
      // Prompt: the stop aborts the connect the server never answers, rather than waiting for the
      // attempt's own timeout (30 s, longer than this test may take), which would be logged.
      const during = await s.stop();
      expect(during.filter((l) => l.level >= 40)).toEqual([]);
      await platform.close();
    }
    expect(s.logs().filter((l) => /no answer within/.test(String(l.error ?? '')))).toEqual([]);
  });

  it('a refused token (401): one clear error line per bot, the bot stays off, the service runs on', async () => {
    const platform = await refusingServer();
    const s = await serviceAgainst(platform);
    try {
      expect((await s.readyz()).status).toBe(200);
      await expect.poll(() => stateOf(s.readyz, 'telegram'), { timeout: 10_000 }).toBe('disabled');
      await expect.poll(() => stateOf(s.readyz, 'discord'), { timeout: 10_000 }).toBe('disabled');
      const { status, body } = await s.readyz();
      expect(status).toBe(200);
      expect(body.details.bots.telegram?.lastError).toContain('401');
      expect(body.details.bots.discord?.lastError).toContain('401');
      const metrics = await s.metrics();
      expect(metrics).toContain('oddswatch_bot_state{platform="telegram",mode="polling",state="disabled"} 1');
      expect(metrics).toContain('oddswatch_bot_state{platform="discord",mode="gateway",state="disabled"} 1');
      // Still off a while later: a refused token is not retried.
      await expectNothingFor(1500, async () => (await stateOf(s.readyz, 'telegram')) !== 'disabled', { message: 'a retry of the refused token' });
      expect(await stateOf(s.readyz, 'telegram')).toBe('disabled');
      const errors = s.logs().filter((l) => l.level >= 50);
      expect(errors.map((l) => l.component)).toEqual(expect.arrayContaining(['telegram-bot', 'discord-bot']));
      expect(errors).toHaveLength(2);
      expect(errors.every((l) => l.msg.includes('token was refused'))).toBe(true);
    } finally {
      expect((await s.stop()).filter((l) => l.level >= 40)).toEqual([]);
      await platform.close();
    }
    expect(s.raw.join('\n')).not.toContain(TELEGRAM_TOKEN);
  });

  it('another deployment polling the same token (409): shown as backoff and retried with growing pauses, not in a loop', async () => {
    const api = await conflictingBotApi();
    const database = await createTestDatabase();
    const config = parseConfig({ ...TEST_SETTINGS, TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN, TELEGRAM_API_URL: api.url });
    const role = await startBotsRole({ database, config, logger: createLogger('silent') }, { timing: { backoffMinMs: 200, backoffMaxMs: 60_000 } });
    try {
      await expect.poll(() => role.status()[0]?.lastError ?? '', { timeout: 10_000 }).toContain('409');
      await expectNothingFor(2000, () => api.count('getMe') > 6, { message: 'more than 6 reconnects' });
      // Pauses of 0.2–0.4 s, then 0.4–0.8 s, 0.8–1.6 s …: a handful of reconnects, not hundreds.
      expect(api.count('getMe')).toBeLessThanOrEqual(6);
      expect(['backoff', 'connected']).toContain(role.status()[0]?.state);
    } finally {
      await role.stop();
      await api.close();
      await database.drop();
    }
  });
});

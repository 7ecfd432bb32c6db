import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBotsRole, type BotsRole } from '../../src/bots/role.js';
import { BOT_LOCKS } from '../../src/db/coordination.js';
import { openDatabase, type Database } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { expectNothingFor } from '../support/wait.js';
import { startFakeBotApi, type FakeBotApi } from './fake-bot-api.js';
import { startFakeDiscordGateway } from './fake-discord-gateway.js';

const TOKEN = '123456:HOLDER-token';
const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
// Lock checks and backoffs short; the connect timeout not: nothing here hangs, and a 3 s one cut
// slow connects on a loaded machine short (a second setWebhook, a reconnect nobody asked for).
const timing = { holderRetryMs: 200, backoffMinMs: 100, backoffMaxMs: 500, connectTimeoutMs: 30_000 };

/**
 * Two processes running the bots role on one PostgreSQL: each has its own database handle and,
 * so that "who polls" can be seen, its own fake Bot API (Telegram itself would answer 409 to all
 * pollers but one).
 */
describe.skipIf(!process.env.DATABASE_URL)('one Telegram poller per database (needs DATABASE_URL)', () => {
  let env: TestEnv;
  let second: Database;
  const apis: FakeBotApi[] = [];
  const roles: BotsRole[] = [];

  beforeAll(async () => {
    env = await createTestEnv();
    second = await openDatabase({ databaseUrl: env.databaseUrl!, maxConnections: 3 });
    apis.push(await startFakeBotApi(TOKEN), await startFakeBotApi(TOKEN));
  });
  afterAll(async () => {
    for (const role of roles) await role.stop();
    for (const api of apis) await api.close();
    await second?.close();
    await env?.close();
  });

  const startOn = async (database: Database, api: FakeBotApi) => {
    const config = { ...env.config, TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_URL: api.url, TELEGRAM_WEBHOOK_URL: undefined };
    const role = await startBotsRole({ database, config, logger }, { timing });
    roles.push(role);
    return role;
  };
  const stateOf = (role: BotsRole) => role.status()[0]?.state;
  const polls = (api: FakeBotApi) => api.callsTo('getUpdates').length;

  it('only one process polls; when it stops, the other takes over within a few seconds', async () => {
    const [apiA, apiB] = apis as [FakeBotApi, FakeBotApi];
    const a = await startOn(env.database, apiA);
    await expect.poll(() => stateOf(a), { timeout: 10_000 }).toBe('connected');
    const b = await startOn(second, apiB);
    await expect.poll(() => stateOf(b), { timeout: 10_000 }).toBe('standby');

    // A while later, B has still not said a word to Telegram, while A keeps polling.
    const aPolls = polls(apiA);
    await expectNothingFor(1000, () => apiB.calls, { message: 'a call from the standby to Telegram' });
    expect(apiB.calls).toEqual([]);
    expect(polls(apiA)).toBeGreaterThan(aPolls);
    expect(stateOf(b)).toBe('standby');

    await a.stop();
    expect(stateOf(a)).toBe('stopped');
    // On its next lock check (every 200 ms here): the poll's bound is only for a hang.
    await expect.poll(() => stateOf(b), { timeout: 10_000 }).toBe('connected');
    const afterStop = polls(apiA);
    await expect.poll(() => polls(apiB), { timeout: 5000 }).toBeGreaterThan(0);
    await expectNothingFor(500, () => polls(apiA) !== afterStop, { message: 'a poll by the old holder' });
    expect(polls(apiA)).toBe(afterStop); // the old holder stays quiet
  });

  it('when the holder dies (its database session ends), the lock moves and still only one process polls', async () => {
    const [apiA, apiB] = apis as [FakeBotApi, FakeBotApi];
    const b = roles.at(-1)!; // the holder now
    expect(stateOf(b)).toBe('connected');
    const a = await startOn(env.database, apiA);
    await expect.poll(() => stateOf(a), { timeout: 10_000 }).toBe('standby');

    const holderPid = async () =>
      (
        await env.database.rows<{ pid: number }>(sql`
          select pid from pg_locks
          where locktype = 'advisory' and objsubid = 1 and objid = ${BOT_LOCKS.telegram} and granted
            and database = (select oid from pg_database where datname = current_database())`)
      )[0]?.pid;
    const dead = await holderPid();
    expect(dead).toBeDefined();
    // What a crash looks like to PostgreSQL: the holder's session is gone, and its lock with it.
    await env.database.rows(sql`select pg_terminate_backend(${dead}::int)`);

    // Whoever wins the lock next (the standby, or the old holder on a new session), one polls.
    await expect.poll(async () => { const pid = await holderPid(); return pid !== undefined && pid !== dead; }, { timeout: 5000 }).toBe(true);
    // Until the old holder's next lock check (holderRetryMs) both may poll for a moment: Telegram
    // answers 409 to one of them. Then exactly one polls, and it is the one that says so.
    const settled = async () => {
      const [a0, b0] = [polls(apiA), polls(apiB)];
      // A window of 400 ms, cut short (and tried again) as soon as both poll in it.
      await expectNothingFor(400, () => polls(apiA) > a0 && polls(apiB) > b0, { message: 'both processes polling' });
      const [aMoved, bMoved] = [polls(apiA) > a0, polls(apiB) > b0];
      const states = [stateOf(a), stateOf(b)];
      return aMoved !== bMoved && states.sort().join() === 'connected,standby' && (aMoved ? stateOf(a) : stateOf(b)) === 'connected';
    };
    await expect.poll(settled, { timeout: 10_000 }).toBe(true);
    const [poller, idle] = stateOf(a) === 'connected' ? [apiA, apiB] : [apiB, apiA];
    const before = [polls(poller), polls(idle)];
    await expectNothingFor(800, () => polls(idle) !== before[1], { message: 'a poll by the standby' });
    expect(polls(idle)).toBe(before[1]);
    expect(polls(poller)).toBeGreaterThan(before[0]!);
  });

  it('one Discord gateway session per database: the standby logs in only after the holder stops', async () => {
    const gateway = await startFakeDiscordGateway('4242');
    const config = { ...env.config, TELEGRAM_BOT_TOKEN: undefined, DISCORD_TOKEN: 'gateway-token', DISCORD_APPLICATION_ID: '4242', DISCORD_API_URL: gateway.url };
    const first = await startBotsRole({ database: env.database, config, logger }, { timing });
    const other = await startBotsRole({ database: second, config, logger }, { timing });
    try {
      await expect.poll(() => [first, other].map((r) => r.status()[0]?.state).sort(), { timeout: 10_000 }).toEqual(['connected', 'standby']);
      expect(gateway.sessions()).toBe(1);
      const [holder, standby] = first.status()[0]?.state === 'connected' ? [first, other] : [other, first];
      await holder.stop();
      await expect.poll(() => standby.status()[0]?.state, { timeout: 10_000 }).toBe('connected');
      await expect.poll(() => gateway.sessions(), { timeout: 3000 }).toBe(1);
    } finally {
      await first.stop();
      await other.stop();
      await gateway.close();
    }
  });
});

describe('webhook mode needs no holder', () => {
  let env: TestEnv;
  let api: FakeBotApi;
  beforeAll(async () => {
    env = await createTestEnv();
    api = await startFakeBotApi(TOKEN);
  });
  afterAll(async () => {
    await api?.close();
    await env?.close();
  });

  it('every process registers the webhook and serves it, whoever holds the polling lock', async () => {
    const held = await env.database.tryAdvisoryLock(BOT_LOCKS.telegram);
    const config = { ...env.config, TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_URL: api.url, TELEGRAM_WEBHOOK_URL: 'https://bots.example.com/tg' };
    const role = await startBotsRole({ database: env.database, config, logger }, { timing });
    try {
      await expect.poll(() => role.status()[0]?.state, { timeout: 10_000 }).toBe('connected');
      expect(api.callsTo('setWebhook')).toHaveLength(1);
    } finally {
      await role.stop();
      await held?.release();
    }
  });
});

import { createServer } from 'node:http';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { Bot } from 'grammy';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { insertAccountWithToken } from '../../src/services/accounts/index.js';
import { TEST_SETTINGS } from '../support/context.js';
import { createTestDatabase, engineName } from '../support/db.js';

// Secrets of every known shape, as an operator's logs could meet them.
const API_TOKEN = 'ow_Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5';
const SIGNING_SECRET = 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LWZvci13ZWJob29rcw==';
const BOT_TOKEN = '7123456789:AAHk3x9Qm2Lp8Vn4Rt6Ws1Yz0Bc5Df7Gh2J';
const DISCORD_HOOK = 'https://discord.com/api/webhooks/112233445566778899/Xy-Z_discord-webhook-token-0123456789';
const WEBHOOK_URL = 'https://hooks.example.com/customer/42/endpoint?key=hunter2';
const SECRET_PARTS = [API_TOKEN, SIGNING_SECRET, BOT_TOKEN, '112233445566778899/Xy-Z', 'discord-webhook-token', 'customer/42', 'hunter2'];

function capture(level = 'info'): { logger: Logger; text(): string; lines(): Record<string, unknown>[] } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger(level, sink);
  return {
    logger,
    text: () => chunks.join(''),
    // Every line must still be JSON after redaction.
    lines: () => chunks.join('').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

function expectNoSecret(text: string) {
  for (const part of SECRET_PARTS) expect(text).not.toContain(part);
}

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

describe(`secrets stay out of the logs (${engineName})`, () => {
  it('a failing query logs neither its parameters nor the values in the database error', async () => {
    const log = capture();
    const failing = database.db.execute(
      sql`select ${WEBHOOK_URL}::text as a, ${DISCORD_HOOK}::text as b, ${SIGNING_SECRET}::text as c, ${API_TOKEN}::int as d`,
    );
    const err = await failing.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    // The error as thrown does carry the values: that is what must not be logged.
    expect(JSON.stringify({ ...err, message: err!.message })).toContain('hunter2');
    log.logger.error({ err }, 'request failed');
    log.logger.error(err!); // without a message of its own: pino takes the error's message
    expectNoSecret(log.text());
    const [first] = log.lines();
    const logged = first!.err as { type: string; message: string; stack: string };
    // What an operator needs is still there: the error's kind, the SQL text and the database's reason.
    expect(logged.type).toMatch(/Error/);
    expect(logged.message).toContain('Failed query: select $1::text');
    expect(logged.message).toMatch(/invalid input syntax for type integer/);
    expect(logged).not.toHaveProperty('params');
  });

  it("a constraint violation logs the constraint, not the row's values (PostgreSQL's detail)", async () => {
    const log = capture();
    const chatUser = 'private-chat-user-hunter2';
    await insertAccountWithToken(database.db, { discordUserId: chatUser });
    const err = await insertAccountWithToken(database.db, { discordUserId: chatUser }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    log.logger.error({ err }, 'request failed');
    expectNoSecret(log.text());
    expect(log.text()).toMatch(/duplicate key value violates unique constraint/);
  });

  it('errors without SQL values are logged as they are, whatever their class', () => {
    const log = capture();
    log.logger.warn({ err: new DOMException('The operation timed out', 'TimeoutError') }, 'webhook send timed out');
    const agg = new AggregateError([new Error('first'), new Error('second')], 'both failed');
    log.logger.error({ err: agg }, 'sends failed');
    const [timeout, both] = log.lines();
    expect(timeout!.err).toMatchObject({ message: 'The operation timed out', type: 'DOMException' });
    expect(JSON.stringify(both!.err)).toContain('second');
  });

  it('a request with ?access_token= logs its path, never the query string or the token (nor a webhook secret header)', async () => {
    const log = capture();
    const config = parseConfig({ ...TEST_SETTINGS });
    const { app } = createApp({ config, database, logger: log.logger, readiness: async () => ({ ready: true }) });
    const { token } = await insertAccountWithToken(database.db, {});
    await supertest(app).get(`/watchlists?access_token=${API_TOKEN}&x=1`).set('Authorization', `Bearer ${token}`).expect(200);
    await supertest(app).get(`/no-such-route?access_token=${API_TOKEN}`).expect(404);
    await supertest(app).post('/telegram-hook').set('X-Telegram-Bot-Api-Secret-Token', 'telegram-shared-secret-hunter2').send({}).expect(404);
    const text = log.text();
    expectNoSecret(text);
    expect(text).not.toContain(token);
    const urls = log.lines().map((line) => (line.req as { url?: string } | undefined)?.url);
    expect(urls).toContain('/watchlists?[redacted]');
    expect(urls).toContain('/no-such-route?[redacted]');
  });

  it("grammY's network error (its fetch error holds the Bot API URL with the token) is logged without the token", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const bot = new Bot(BOT_TOKEN, { client: { apiRoot: `http://127.0.0.1:${port}` } });
    const err = await bot.api.getMe().then(
      () => undefined,
      (e: unknown) => e as Error & { error?: unknown },
    );
    expect(String(err?.error)).toContain(BOT_TOKEN);
    const log = capture();
    log.logger.error({ err }, 'telegram polling stopped with an error');
    expectNoSecret(log.text());
    expect(log.text()).toContain('ECONNREFUSED');
  });

  it('an error whose message carries a bot token, a Discord webhook or a webhook URL logs none of them', () => {
    const log = capture();
    const polling = new Error(`Network request for 'getUpdates' failed! (https://api.telegram.org/bot${BOT_TOKEN}/getUpdates)`);
    const sender = new Error(`POST ${DISCORD_HOOK} answered 404`, { cause: new Error(`connect ECONNREFUSED for ${WEBHOOK_URL}`) });
    log.logger.error({ err: polling }, 'telegram polling stopped with an error');
    log.logger.warn({ err: sender, target: WEBHOOK_URL, note: `signing with ${SIGNING_SECRET}` }, `delivery to ${WEBHOOK_URL} failed`);
    log.logger.info(`bot ${BOT_TOKEN} and token ${API_TOKEN}`);
    expectNoSecret(log.text());
    const lines = log.lines();
    expect(lines).toHaveLength(3);
    // The origin stays, so the operator still sees where it went wrong.
    expect((lines[0]!.err as { message: string }).message).toContain('https://api.telegram.org/[redacted]');
    expect(lines[1]!.msg).toBe('delivery to https://hooks.example.com/[redacted] failed');
  });

  it("a console session's secret and a /login code are never logged", () => {
    const log = capture();
    const session = `ows_${'A1b2'.repeat(10)}xyz`;
    const code = `owl_${'c3D4'.repeat(8)}`;
    log.logger.warn({ cookie: `ow_session=${session}` }, `sign-in with ${code} refused`);
    expect(log.text()).not.toContain(session.slice(4));
    expect(log.text()).not.toContain(code.slice(4));
    expect(log.lines()[0]!.msg).toBe('sign-in with owl_[redacted] refused');
  });

  it("this machine's own listeners keep their path in the log (an operator copies them), but not their query", () => {
    const log = capture();
    log.logger.info({ controlUrl: 'http://127.0.0.1:3100/control', url: 'http://localhost:3000/docs?access_token=x1' }, 'venue simulator listening');
    const [line] = log.lines();
    expect(line!.controlUrl).toBe('http://127.0.0.1:3100/control');
    expect(line!.url).toBe('http://localhost:3000/docs');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { openDatabase, type Database } from '../../src/db/index.js';
import { writeNotificationsOnce } from '../../src/delivery/enqueue.js';
import { sendersFromConfig } from '../../src/delivery/senders/index.js';
import { escapeHtml } from '../../src/delivery/senders/telegram.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/delivery/worker.js';
import { DigestNotification } from '../../src/http/webhook-payloads.js';
import { createLogger } from '../../src/logger.js';
import { startEngineRole, type EngineRole } from '../../src/runner/role.js';
import type { SimMarket } from '../../src/simulator/state.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { expectNothingFor, testClock, waitFor } from '../support/wait.js';
import { json, startReceiver, type Receiver } from '../delivery/support/receiver.js';
import { startFakeBotApi, type FakeBotApi } from '../bots/fake-bot-api.js';
import { movePrice, savedPrice, seedFromSimulator, subscribe, watchlistWith } from '../runner/helpers.js';
import { startSimulator } from '../venue/support.js';
import { OUTBOX_SETTINGS, pricePayload } from './support.js';

// Batched sends end to end (#19 items 3-5): prices moved in the venue simulator, the engine role
// writing the firings, the real worker sending to a fake Telegram Bot API and a local webhook
// receiver. Where time must pass (a digest's hour, the end of quiet hours) the worker's due clock
// is moved instead of waited out.

const TOKEN = '123456:batches-test-token';
const logger = createLogger('silent');

let env: TestEnv;
let tg: FakeBotApi;
let receiver: Receiver;
let sim: Awaited<ReturnType<typeof startSimulator>>;
let engine: EngineRole | undefined;
let markets: SimMarket[] = [];
const workers: DeliveryWorker[] = [];

beforeAll(async () => {
  // BURST_MAX and BURST_WINDOW_MS at their defaults: 5 within 10 s.
  env = await createTestEnv(OUTBOX_SETTINGS);
  tg = await startFakeBotApi(TOKEN);
  receiver = await startReceiver((_req, res) => json(res, 200, { ok: true }));
  sim = await startSimulator();
  markets = await seedFromSimulator(env.database, sim.sim.state, 26);
  engine = await startEngineRole({ database: env.database, config: env.config, logger, clobUrl: sim.urls.clobUrl, clobWsUrl: sim.urls.clobWsUrl });
}, 60_000);

afterAll(async () => {
  for (const w of workers) await w.stop();
  await engine?.stop();
  await sim?.sim.stop();
  await tg?.close();
  await receiver?.close();
  await env?.close();
});

/** The real worker with the Telegram fake; `dueClock` moves time for what is held. */
async function startWorker(dueClock?: () => number): Promise<DeliveryWorker> {
  const config = { ...env.config, TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_URL: tg.url };
  const worker = await startDeliveryWorker({
    database: env.database,
    senders: sendersFromConfig(config),
    config,
    logger,
    pollMs: 100,
    ...(dueClock ? { dueClock } : {}),
  });
  workers.push(worker);
  return worker;
}

async function stopWorker(worker: DeliveryWorker) {
  workers.splice(workers.indexOf(worker), 1);
  await worker.stop();
}

/** A Watchlist rule (Crossing Up 50 %) over the markets' events, with the given channels. */
async function ruleOver(a: TestAccount, over: SimMarket[], channels: unknown[]) {
  const wl = await watchlistWith(
    env,
    a,
    over.map((m) => ({ id: m.eventId }) as never),
  );
  return subscribe(env, a, wl, { scope: 'Watchlist', type: 'Crossing Up', threshold: 50, channels });
}

/** Every market below 50 % (seen by the engine), then all of them above it, as fast as the venue takes it. */
async function crossAll(over: SimMarket[]) {
  for (const m of over) await movePrice(sim.urls.controlUrl, m.id, 0.3);
  await waitFor(async () => (await Promise.all(over.map((m) => savedPrice(env.database, m.tokenIds[0]!)))).every((p) => p === 0.3), {
    message: 'the engine seeing every market at 30 %',
    timeoutMs: 15_000,
  });
  await Promise.all(over.map((m) => movePrice(sim.urls.controlUrl, m.id, 0.7)));
}

async function deliveriesOf(subscriptionId: string, channel: string) {
  return env.database.rows<{ notificationId: string; status: string; attempts: number; batchKey: string | null; due: string }>(sql`
    select d.notification_id as "notificationId", d.status, d.attempts, d.batch_key as "batchKey", d.due_at::text as due
    from deliveries d join notifications n on n.id = d.notification_id
    where n.subscription_id = ${subscriptionId} and d.channel_type = ${channel}
    order by d.id`);
}

const toChat = (chatId: number) => tg.callsTo('sendMessage').filter((c) => c.body.chat_id === chatId);
const pgTime = (text: string) => Date.parse(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));

describe(`burst grouping (${engineName})`, () => {
  it('20 firings in one second reach a Telegram chat as six messages through a 429, and all 20 deliveries are SENT', async () => {
    const a = await env.newAccount();
    const chatId = 9001;
    const over = markets.slice(0, 20);
    const sub = await ruleOver(a, over, [{ type: 'In App' }, { type: 'Telegram', settings: { telegramChatId: chatId } }]);
    const clock = testClock();
    const worker = await startWorker(clock.now);

    await crossAll(over);
    await waitFor(async () => (await deliveriesOf(sub, 'Telegram')).length === 20, { message: '20 firings', timeoutMs: 15_000 });
    // The first BURST_MAX go one by one; Telegram's flood control then answers the grouped one 429 once.
    await waitFor(() => toChat(chatId).length >= 5, { message: 'the first five alerts' });
    await expectNothingFor(300, () => toChat(chatId).length > 5, { message: 'a sixth message within the window' });
    tg.floodNext(1);
    clock.advance(10_000); // the window's end
    const rows = await waitFor(
      async () => {
        const all = await deliveriesOf(sub, 'Telegram');
        return all.every((d) => d.status === 'SENT') && all;
      },
      { message: 'every delivery SENT', timeoutMs: 15_000 },
    );
    await stopWorker(worker);

    const calls = toChat(chatId);
    const refused = tg.refused.filter((r) => r.body.chat_id === chatId);
    expect(refused.map((r) => r.answer.error_code)).toEqual([429]);
    const delivered = calls.filter((c) => !refused.some((r) => r.body === c.body));
    expect(delivered.length).toBeLessThanOrEqual(6);
    expect(delivered).toHaveLength(6);
    const summary = delivered.at(-1)!.body.text as string;
    expect(summary).toMatch(/^<b>⚡ 15 more alerts in a burst<\/b>/);
    // Every market the summary stands for is in it, once.
    const grouped = rows.filter((d) => d.batchKey !== null);
    expect(grouped).toHaveLength(15);
    const instant = rows.filter((d) => d.batchKey === null);
    expect(instant.every((d) => d.attempts === 1)).toBe(true);
    // The 429 is in each grouped delivery's own history, then the send that went through.
    expect(grouped.every((d) => d.attempts === 2)).toBe(true);
    const [history] = grouped;
    const res = await env.http.get(`/notifications/${history!.notificationId}/deliveries`).set(a.auth).expect(200);
    const telegram = (res.body.deliveries as Array<{ channel: string; status: string; attempts: Array<{ statusCode: number | null }> }>).find(
      (d) => d.channel === 'Telegram',
    )!;
    expect(telegram.status).toBe('SENT');
    expect(telegram.attempts.map((t) => t.statusCode)).toEqual([429, 200]);
    const inSummary = over.filter((m) => summary.includes(`• ${escapeHtml(m.question)} · ⬆ Crossed above 50 %`));
    expect(inSummary).toHaveLength(15);
  }, 60_000);
});

describe(`bursts with several writers and workers (${engineName})`, () => {
  it('counts the window in the database and sends the grouped rest once, whichever worker claims it', async () => {
    const a = await env.newAccount();
    const chatId = 9002;
    const wl = await env.http.post('/watchlists').set(a.auth).send({ name: 'Several' }).expect(201);
    const watchlistId: string = wl.body.watchList.id;
    const channels = [{ type: 'Telegram' as const, settings: { telegramChatId: chatId } }];
    const subscriptionId = await subscribe(env, a, watchlistId, { scope: 'Watchlist', threshold: 50, channels });
    // On PostgreSQL a second handle is a second process's pool; PGlite has one connection.
    const other = env.databaseUrl ? await openDatabase({ databaseUrl: env.databaseUrl, maxConnections: 3 }) : env.database;
    try {
      const write = (on: Database, count: number) =>
        on.db.transaction((tx) =>
          writeNotificationsOnce(
            tx,
            Array.from({ length: count }, () => {
              const payload = pricePayload(a, subscriptionId, watchlistId);
              return { accountId: a.userId, subscriptionId, type: 'price_notification' as const, payload, dedupeKey: `${subscriptionId}:x:${payload.detectedAtMs}`, channels };
            }),
            { digestHour: 9, burst: { max: 5, windowMs: 10_000 } },
          ),
        );
      // Two engine processes writing firings for the same chat at the same moment.
      await Promise.all([write(env.database, 6), write(other, 6), write(env.database, 1), write(other, 1)]);
      const rows = await deliveriesOf(subscriptionId, 'Telegram');
      expect(rows).toHaveLength(14);
      expect(rows.filter((d) => d.batchKey === null)).toHaveLength(5);
      expect(new Set(rows.flatMap((d) => (d.batchKey ? [d.batchKey] : []))).size).toBe(1);

      const clock = testClock();
      const first = await startWorker(clock.now);
      const second = await startDeliveryWorker({
        database: other,
        senders: sendersFromConfig({ ...env.config, TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_URL: tg.url }),
        config: env.config,
        logger,
        pollMs: 50,
        dueClock: clock.now,
      });
      try {
        await waitFor(() => toChat(chatId).length === 5, { message: 'the first five, one by one' });
        clock.advance(10_000);
        await waitFor(async () => (await deliveriesOf(subscriptionId, 'Telegram')).every((d) => d.status === 'SENT'), { message: 'all SENT' });
        await expectNothingFor(300, () => toChat(chatId).length > 6, { message: 'a seventh message' });
      } finally {
        await second.stop();
        await stopWorker(first);
      }
      expect(toChat(chatId).map((c) => String(c.body.text).split('\n')[0])).toContain('<b>⚡ 9 more alerts in a burst</b>');
      expect(toChat(chatId)).toHaveLength(6);
    } finally {
      if (other !== env.database) await other.close();
    }
  });
});

describe(`digests (${engineName})`, () => {
  it('an hourly digest sends one signed webhook with every firing of the hour, at the top of the hour', async () => {
    const a = await env.newAccount();
    const path = '/digest-hook';
    const over = markets.slice(20, 23);
    const sub = await ruleOver(a, over, [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: `${receiver.url}${path}` } }]);
    await env.http.put(`/subscription/${sub}/preferences`).set(a.auth).send({ delivery: 'hourly' }).expect(200);
    const clock = testClock();
    const worker = await startWorker(clock.now);
    const hooks = () => receiver.requests.filter((r) => r.url === path);

    await crossAll(over);
    const held = await waitFor(async () => {
      const rows = await deliveriesOf(sub, 'Webhook');
      return rows.length === 3 && rows;
    }, { message: 'three firings', timeoutMs: 15_000 });
    await expectNothingFor(500, hooks, { message: 'a webhook before the hour is over' });
    const topOfHour = Math.ceil((Date.now() + 1) / 3_600_000) * 3_600_000;
    for (const d of held) {
      expect(d.status).toBe('PENDING');
      expect(pgTime(d.due)).toBe(topOfHour);
    }
    expect(new Set(held.map((d) => d.batchKey)).size).toBe(1);
    // The inbox had them at once.
    const inbox = await env.http.get('/notifications').set(a.auth).expect(200);
    expect(JSON.stringify(inbox.body)).toContain(sub);

    clock.advance(topOfHour - Date.now() + 1000);
    const [request] = await waitFor(() => hooks().length > 0 && hooks(), { message: 'the digest webhook' });
    await expectNothingFor(500, () => hooks().length > 1, { message: 'a second webhook' });
    await stopWorker(worker);

    const { body: secret } = await env.http.get('/webhook-secret').set(a.auth).expect(200);
    const body = new Webhook(secret.secret).verify(request!.body, request!.headers as Record<string, string>);
    expect(request!.headers['webhook-id']).toMatch(/^digest_/);
    const digest = DigestNotification.parse(body);
    expect(digest).toMatchObject({ type: 'digest_notification', userId: a.userId, reason: 'hourly', count: 3 });
    expect(digest.notifications.map((n) => n.subscriptionId)).toEqual([sub, sub, sub]);
    expect(new Set(digest.notifications.map((n) => n.marketId))).toEqual(new Set(over.map((m) => m.id)));
    // This receiver sees its own URL and the other channels by type only.
    expect(digest.notifications[0]!.channels).toEqual([{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: `${receiver.url}${path}` } }]);
    const sent = await deliveriesOf(sub, 'Webhook');
    expect(sent.map((d) => [d.status, d.attempts])).toEqual([['SENT', 1], ['SENT', 1], ['SENT', 1]]);
  }, 60_000);
});

describe(`quiet hours (${engineName})`, () => {
  /** "HH:MM" in UTC, `minutes` from now. */
  const utcClock = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString().slice(11, 16);

  it('hold chat alerts and release them as one summary message when they end', async () => {
    const a = await env.newAccount();
    const chatId = 9003;
    const over = markets.slice(23, 26);
    await env.http.put('/preferences').set(a.auth).send({ quietHours: { start: utcClock(-60), end: utcClock(120) } }).expect(200);
    const sub = await ruleOver(a, over, [{ type: 'In App' }, { type: 'Telegram', settings: { telegramChatId: chatId } }]);
    const clock = testClock();
    const worker = await startWorker(clock.now);

    await crossAll(over);
    await waitFor(async () => (await deliveriesOf(sub, 'Telegram')).length === 3, { message: 'three firings', timeoutMs: 15_000 });
    await expectNothingFor(500, () => toChat(chatId), { message: 'a chat message in quiet hours' });

    clock.advance(3 * 3_600_000);
    const [message] = await waitFor(() => toChat(chatId).length > 0 && toChat(chatId), { message: 'the summary' });
    await expectNothingFor(500, () => toChat(chatId).length > 1, { message: 'a second message' });
    await stopWorker(worker);

    const text = message!.body.text as string;
    expect(text).toMatch(/^<b>🌙 While your quiet hours were on: 3 alerts<\/b>/);
    for (const m of over) expect(text).toContain(`• ${escapeHtml(m.question)} · ⬆ Crossed above 50 % · 70 %`);
    expect(text.split('\n').filter((l) => l.startsWith('• '))).toHaveLength(3);
    const rows = await deliveriesOf(sub, 'Telegram');
    expect(rows.map((d) => d.status)).toEqual(['SENT', 'SENT', 'SENT']);
  }, 60_000);

  it('end at the wall time across the spring-forward change, as one summary (injected clock)', async () => {
    const a = await env.newAccount();
    const chatId = 9004;
    await env.http
      .put('/preferences')
      .set(a.auth)
      .send({ timezone: 'Europe/Berlin', quietHours: { start: '22:00', end: '03:30' } })
      .expect(200);
    const wl = await env.http.post('/watchlists').set(a.auth).send({ name: 'DST' }).expect(201);
    const watchlistId: string = wl.body.watchList.id;
    const subscriptionId = await subscribe(env, a, watchlistId, { scope: 'Watchlist', threshold: 50, channels: [{ type: 'Telegram', settings: { telegramChatId: chatId } }] });
    // 01:30 CET on 29 March 2026; at 02:00 the clocks jump to 03:00 CEST, so 03:30 is 01:30 UTC, not 02:30.
    const writtenAt = Date.UTC(2026, 2, 29, 0, 30);
    const ids = await writeNotificationsOnce(
      env.database.db,
      [0, 1].map(() => {
        const payload = pricePayload(a, subscriptionId, watchlistId);
        return {
          accountId: a.userId,
          subscriptionId,
          type: 'price_notification' as const,
          payload,
          dedupeKey: `${subscriptionId}:dst:${payload.detectedAtMs}`,
          channels: [{ type: 'Telegram' as const, settings: { telegramChatId: chatId } }],
        };
      }),
      { digestHour: 9, now: () => writtenAt },
    );
    expect(ids).not.toContain(null);
    const end = Date.UTC(2026, 2, 29, 1, 30);
    const rows = await deliveriesOf(subscriptionId, 'Telegram');
    expect(rows.map((d) => pgTime(d.due))).toEqual([end, end]);

    let now = end - 60_000;
    const worker = await startWorker(() => now);
    await expectNothingFor(500, () => toChat(chatId), { message: 'a message a minute before quiet hours end' });
    now = end;
    const [message] = await waitFor(() => toChat(chatId).length > 0 && toChat(chatId), { message: 'the summary at 03:30 CEST' });
    await expectNothingFor(300, () => toChat(chatId).length > 1, { message: 'a second message' });
    await stopWorker(worker);
    expect(message!.body.text).toMatch(/^<b>🌙 While your quiet hours were on: 2 alerts<\/b>\n\n<b>Who wins\?<\/b>\n• Will A win\? · ⬆ Crossed above 50 % · 53\.5 % · 2 times$/);
  }, 30_000);
});

describe(`daily digests and what goes around batches (${engineName})`, () => {
  async function ruleWith(a: TestAccount, channels: { type: 'Telegram' | 'Webhook'; settings: Record<string, unknown> }[]) {
    const wl = await env.http.post('/watchlists').set(a.auth).send({ name: 'Daily' }).expect(201);
    const watchlistId: string = wl.body.watchList.id;
    const subscriptionId = await subscribe(env, a, watchlistId, { scope: 'Watchlist', threshold: 50, channels });
    const write = (nowMs: number, digestHour = 9) =>
      writeNotificationsOnce(
        env.database.db,
        [
          (() => {
            const payload = pricePayload(a, subscriptionId, watchlistId);
            return { accountId: a.userId, subscriptionId, type: 'price_notification' as const, payload, dedupeKey: `${subscriptionId}:d:${payload.detectedAtMs}`, channels };
          })(),
        ],
        { digestHour, now: () => nowMs },
      );
    return { subscriptionId, write };
  }

  it('a daily digest is due at DIGEST_HOUR in the account time zone, and one falling in quiet hours joins their summary', async () => {
    const a = await env.newAccount();
    await env.http.put('/preferences').set(a.auth).send({ timezone: 'America/New_York' }).expect(200);
    const { subscriptionId, write } = await ruleWith(a, [{ type: 'Webhook', settings: { webhookUrl: `${receiver.url}/daily` } }]);
    await env.http.put(`/subscription/${subscriptionId}/preferences`).set(a.auth).send({ delivery: 'daily' }).expect(200);
    // 20:00 in New York (EST, UTC-5) on 15 January: the next 07:00 there is 12:00Z on the 16th.
    await write(Date.UTC(2026, 0, 16, 1, 0), 7);
    let rows = await deliveriesOf(subscriptionId, 'Webhook');
    expect(rows.map((d) => pgTime(d.due))).toEqual([Date.UTC(2026, 0, 16, 12, 0)]);
    expect(rows[0]!.batchKey).toMatch(/^daily:/);

    // Quiet hours for webhooks too, 06:00-08:00 there: the 07:00 digest waits for 08:00, as the quiet summary.
    await env.http.put('/preferences').set(a.auth).send({ timezone: 'America/New_York', quietHours: { start: '06:00', end: '08:00', channels: ['Webhook'] } }).expect(200);
    await write(Date.UTC(2026, 0, 16, 1, 5), 7);
    rows = await deliveriesOf(subscriptionId, 'Webhook');
    expect(pgTime(rows[1]!.due)).toBe(Date.UTC(2026, 0, 16, 13, 0));
    expect(rows[1]!.batchKey).toMatch(/^quiet:/);
  });

  it('a redelivered delivery of a summary is sent on its own, as its alert', async () => {
    const a = await env.newAccount();
    const chatId = 9005;
    const { subscriptionId, write } = await ruleWith(a, [{ type: 'Telegram', settings: { telegramChatId: chatId } }]);
    await env.http.put(`/subscription/${subscriptionId}/preferences`).set(a.auth).send({ delivery: 'hourly' }).expect(200);
    const [id] = await write(Date.UTC(2026, 0, 16, 1, 0));
    tg.blockedChats.add(chatId);
    let dueBy = Date.UTC(2026, 0, 16, 2, 0);
    const worker = await startWorker(() => dueBy);
    await waitFor(async () => (await deliveriesOf(subscriptionId, 'Telegram'))[0]!.status === 'BLOCKED_BY_USER', { message: 'the summary refused' });
    tg.blockedChats.delete(chatId);
    await env.http.post(`/notifications/${id}/redeliver`).set(a.auth).expect(200);
    dueBy = Date.now() + 60_000; // the redelivery is due now
    const [message] = await waitFor(() => toChat(chatId).length === 2 && toChat(chatId).slice(1), { message: 'the redelivery' });
    await stopWorker(worker);
    expect(message!.body.text).toMatch(/^<b>⬆ Crossed above 50 %<\/b>: Will A win\?/);
    const [row] = await deliveriesOf(subscriptionId, 'Telegram');
    expect(row).toMatchObject({ status: 'SENT', batchKey: null });
  });
});

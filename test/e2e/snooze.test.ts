import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkerRole } from '../../src/delivery/role.js';
import { createLogger } from '../../src/logger.js';
import { startEngineRole, type EngineRole } from '../../src/runner/role.js';
import { startFakeBotApi, type FakeBotApi } from '../bots/fake-bot-api.js';
import { startReceiver, type Receiver } from '../delivery/support/receiver.js';
import { OUTBOX_SETTINGS } from '../outbox/support.js';
import { movePrice, savedPrice, seedFromSimulator } from '../runner/helpers.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { expectNothingFor, waitFor } from '../support/wait.js';
import { startSimulator } from '../venue/support.js';

// Snooze end to end (#19 "Done when"): a price moved in the venue simulator fires a snoozed rule;
// the inbox has the firing and says it was snoozed, the webhook receiver and the Telegram chat get
// nothing; once the snooze has run out the next crossing reaches both again.

const TOKEN = '123456:E2E-snooze';
const CHAT = 5151;
const logger = createLogger('silent');
let env: TestEnv;
let tg: FakeBotApi;
let receiver: Receiver;
let sim: Awaited<ReturnType<typeof startSimulator>>;
let engine: EngineRole | undefined;
let worker: { stop(): Promise<void> } | undefined;

beforeAll(async () => {
  env = await createTestEnv(OUTBOX_SETTINGS);
  tg = await startFakeBotApi(TOKEN);
  receiver = await startReceiver((_req, res) => res.writeHead(200).end('ok'));
  sim = await startSimulator();
});
afterAll(async () => {
  await worker?.stop();
  await engine?.stop();
  await sim?.sim.stop();
  await receiver?.close();
  await tg?.close();
  await env?.close();
});

describe(`a snoozed rule through the simulator, the engine and the worker (${engineName})`, () => {
  it('fills the inbox (marked snoozed) and sends nothing to the webhook or Telegram until the snooze ends, then sends again', async () => {
    const [market] = await seedFromSimulator(env.database, sim.sim.state, 1);
    const m = market!;
    const config = { ...env.config, TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_URL: tg.url };
    engine = await startEngineRole({ database: env.database, config: env.config, logger, clobUrl: sim.urls.clobUrl, clobWsUrl: sim.urls.clobWsUrl });
    worker = await startWorkerRole({ database: env.database, config, logger });

    const a = await env.newAccount();
    const wl = await env.http.post('/watchlists').set(a.auth).send({ name: 'Night', events: { [m.eventId]: { autoFetch: true } } }).expect(201);
    const created = await env.http
      .post('/subscriptions')
      .set(a.auth)
      .send({
        watchlistId: wl.body.watchList.id,
        subscriptionScope: 'Market',
        eventId: m.eventId,
        marketId: m.id,
        subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 50 } } },
        triggerType: 'Recurring',
        triggerInterval: '0m',
        channels: [{ type: 'In App' }, { type: 'Webhook', settings: { webhookUrl: `${receiver.url}/snoozed` } }, { type: 'Telegram', settings: { telegramChatId: CHAT } }],
      })
      .expect(201);
    const id: string = created.body.subscription.subscriptionId;
    const snooze = await env.http.post(`/subscription/${id}/snooze`).set(a.auth).send({ for: '1h' }).expect(200);
    const sentToChat = () => tg.callsTo('sendMessage').filter((c) => c.body.chat_id === CHAT);
    const inbox = async () => (await env.http.get('/notifications').set(a.auth).expect(200)).body.notifications as Record<string, any>[];

    // Below the threshold first (the engine follows the token once it saved a price), then across it.
    await movePrice(sim.urls.controlUrl, m.id, 0.4);
    await waitFor(async () => (await savedPrice(env.database, m.tokenIds[0])) === 0.4, { timeoutMs: 15_000, message: 'the engine to follow the market' });
    await movePrice(sim.urls.controlUrl, m.id, 0.6);
    const [snoozed] = await waitFor(async () => {
      const items = await inbox();
      return items.length === 1 && items;
    }, { timeoutMs: 15_000, message: 'the snoozed firing in the inbox' });
    expect(snoozed).toMatchObject({ snoozedUntil: snooze.body.snoozedUntil, payload: { subscriptionId: id, marketId: m.id, detectedValue: 0.6 } });
    const reason = `Not sent: the subscription is snoozed until ${snooze.body.snoozedUntil}`;
    const deliveries = async (notificationId: string) =>
      (await env.http.get(`/notifications/${notificationId}/deliveries`).set(a.auth).expect(200)).body.deliveries as Record<string, any>[];
    await waitFor(async () => (await deliveries(snoozed!.id))[0]!.status === 'SENT', { message: "the inbox's own delivery" });
    expect(await deliveries(snoozed!.id)).toEqual([
      expect.objectContaining({ channel: 'In App', status: 'SENT' }),
      expect.objectContaining({ channel: 'Webhook', status: 'FAILED', attempts: [expect.objectContaining({ error: reason })] }),
      expect.objectContaining({ channel: 'Telegram', status: 'FAILED', attempts: [expect.objectContaining({ error: reason })] }),
    ]);
    await expectNothingFor(1000, () => [...receiver.requests, ...sentToChat()], { message: 'a send while snoozed' });

    // The snooze is made to end a second from now, and runs out by itself.
    await env.http.put(`/subscription/${id}/preferences`).set(a.auth).send({ snoozedUntil: new Date(Date.now() + 1000).toISOString() }).expect(200);
    await waitFor(async () => (await env.http.get(`/subscription/${id}/preferences`).set(a.auth).expect(200)).body.snoozedUntil === null, {
      message: 'the snooze to run out',
    });

    // Back below, then across again: now every channel gets it.
    await movePrice(sim.urls.controlUrl, m.id, 0.4);
    await waitFor(async () => (await savedPrice(env.database, m.tokenIds[0])) === 0.4, { timeoutMs: 15_000, message: 'the move back below' });
    await movePrice(sim.urls.controlUrl, m.id, 0.65);
    const [awake] = await waitFor(async () => {
      const items = await inbox();
      return items.length === 2 && items;
    }, { timeoutMs: 15_000, message: 'the second firing' });
    expect(awake).not.toHaveProperty('snoozedUntil');
    expect(awake!.payload).toMatchObject({ subscriptionId: id, detectedValue: 0.65 });
    const [hook] = await waitFor(() => receiver.requests.length === 1 && receiver.requests, { message: 'the webhook after the snooze' });
    // The receiver sees the inbox's payload, except the other channels' settings (webhook-body.ts).
    const { channels, ...rest } = awake!.payload;
    expect(JSON.parse(hook!.body)).toEqual({ ...rest, channels: channels.map((c: { type: string; settings: unknown }) => (c.type === 'Webhook' ? c : { type: c.type })) });
    const [message] = await waitFor(() => sentToChat().length === 1 && sentToChat(), { message: 'the Telegram message after the snooze' });
    expect(message!.body.text).toContain(m.question);
    expect(tg.refused).toEqual([]);
  });
});

import { createLogger } from '../../src/logger.js';
import type { Config } from '../../src/config.js';
import { writeNotification, writeNotificationsOnce } from '../../src/delivery/enqueue.js';
import { createSenders } from '../../src/delivery/senders/index.js';
import { startDeliveryWorker, type DeliveryWorkerOptions } from '../../src/delivery/worker.js';
import type { Database } from '../../src/db/index.js';
import type { ChannelType } from '../../src/domain/enums.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { startFakeBotApi } from '../bots/fake-bot-api.js';
import { json, startReceiver } from '../delivery/support/receiver.js';

// A send timeout no loaded machine reaches: the local receivers answer, or hang on purpose where a test says so.
export const OUTBOX_SETTINGS = { WEBHOOK_RETRY_DELAY_MS: '100', WEBHOOK_TIMEOUT_MS: '30000' };

export type ChannelInput = { type: ChannelType; settings?: Record<string, unknown> };

/** A watchlist and a Watchlist-scoped subscription with the given channels, made through the API. */
export async function createSubscription(env: TestEnv, account: TestAccount, channels: ChannelInput[]) {
  const wl = await env.http.post('/watchlists').set(account.auth).send({ name: 'Outbox' }).expect(201);
  const watchlistId: string = wl.body.watchList.id;
  const sub = await env.http
    .post('/subscriptions')
    .set(account.auth)
    .send({
      watchlistId,
      subscriptionScope: 'Watchlist',
      subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 50 } } },
      channels,
    })
    .expect(201);
  return { watchlistId, subscriptionId: sub.body.subscription.subscriptionId as string, channels };
}

let sequence = 0;

export function pricePayload(account: TestAccount, subscriptionId: string, watchlistId: string) {
  const detectedAtMs = Date.now() + ++sequence;
  return {
    type: 'price_notification',
    userId: account.userId,
    createdAt: new Date(detectedAtMs).toISOString(),
    subscriptionId,
    watchlistId,
    watchlistName: 'Outbox',
    eventId: 'ev-1',
    eventTitle: 'Who wins?',
    marketId: 'mk-1',
    marketQuestion: 'Will A win?',
    polymarketSlug: 'who-wins',
    clobTokenId: 'tok-1',
    subscriptionScope: 'Watchlist',
    subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 50 } } },
    triggerType: 'Recurring',
    detectedValue: 0.535,
    detectedAt: new Date(detectedAtMs).toISOString(),
    detectedAtMs,
    sentFromPolymarketAtMs: detectedAtMs - 100,
  };
}

/** What a firing writes: one notification of `sub` for `account`, with the subscription's channels. */
export async function fire(env: TestEnv, account: TestAccount, sub: Awaited<ReturnType<typeof createSubscription>>) {
  const payload = pricePayload(account, sub.subscriptionId, sub.watchlistId);
  const id = await writeNotification(env.database.db, {
    accountId: account.userId,
    subscriptionId: sub.subscriptionId,
    type: 'price_notification',
    payload,
    dedupeKey: `${sub.subscriptionId}:mk-1:${payload.detectedAtMs}`,
    channels: sub.channels.map((c) => ({ type: c.type, settings: c.settings ?? null })),
  });
  return { id, payload };
}

/** What the engine's firing store writes for `count` firings of `sub` (each its own dedupe key). */
export function firingInputs(
  account: TestAccount,
  sub: Awaited<ReturnType<typeof createSubscription>>,
  count: number,
  channels: ChannelInput[] = sub.channels,
) {
  return Array.from({ length: count }, () => {
    const payload = pricePayload(account, sub.subscriptionId, sub.watchlistId);
    return {
      accountId: account.userId,
      subscriptionId: sub.subscriptionId,
      type: 'price_notification' as const,
      payload,
      dedupeKey: `${sub.subscriptionId}:mk-1:${payload.detectedAtMs}`,
      channels: channels.map((c) => ({ type: c.type, settings: c.settings ?? null })),
    };
  });
}

/** `count` notifications of `sub` in one commit, as the engine writes a batch of firings; answers their ids. */
export async function fireMany(
  env: TestEnv,
  account: TestAccount,
  sub: Awaited<ReturnType<typeof createSubscription>>,
  count: number,
  channels: ChannelInput[] = sub.channels,
): Promise<string[]> {
  const ids = await writeNotificationsOnce(env.database.db, firingInputs(account, sub, count, channels));
  if (ids.includes(null)) throw new Error('fireMany: a dedupe key was already written');
  return ids as string[];
}

export function startWorker(database: Database, config: Config, opts: Partial<DeliveryWorkerOptions> = {}) {
  return startDeliveryWorker({
    database,
    config,
    logger: createLogger('silent'),
    senders: createSenders({ allowPrivateUrls: true, timeoutMs: config.WEBHOOK_TIMEOUT_MS }),
    pollMs: 200,
    ...opts,
  });
}

// test/bots/discord.test.ts imports it from here; new tests import test/support/wait.ts directly.
/**
 * A test database with the outbox settings, a fake Telegram Bot API, a webhook receiver answering
 * 200 and a delivery worker sending to both; `stop` ends them all.
 */
export async function startChatOutbox(botToken: string) {
  const env = await createTestEnv(OUTBOX_SETTINGS);
  const bot = await startFakeBotApi(botToken);
  const receiver = await startReceiver((_req, res) => json(res, 200, { ok: true }));
  const worker = await startWorker(env.database, env.config, {
    senders: createSenders({ allowPrivateUrls: true, timeoutMs: 30_000, telegram: { botToken, apiRoot: bot.url } }),
  });
  return {
    env,
    bot,
    receiver,
    async stop() {
      await worker.stop();
      await Promise.all([receiver.close(), bot.close()]);
      await env.close();
    },
  };
}

export { waitFor } from '../support/wait.js';

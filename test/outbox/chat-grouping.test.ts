import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { groupForChat } from '../../src/delivery/chat-groups.js';
import { writeNotificationsOnce } from '../../src/delivery/enqueue.js';
import type { ClaimedWithContext } from '../../src/delivery/outbox-store.js';
import { createSenders } from '../../src/delivery/senders/index.js';
import { startFakeBotApi, type FakeBotApi } from '../bots/fake-bot-api.js';
import { seedEvent } from '../support/catalog.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { waitFor } from '../support/wait.js';
import { createSubscription, OUTBOX_SETTINGS, pricePayload, startWorker } from './support.js';

const botToken = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ';
let env: TestEnv;
let api: FakeBotApi;
beforeAll(async () => {
  env = await createTestEnv(OUTBOX_SETTINGS);
  api = await startFakeBotApi(botToken);
});
afterAll(async () => {
  await api?.close();
  await env?.close();
});

const RULES = [
  { type: 'Crossing Up', threshold: 60 },
  { type: 'Greater Than', threshold: 55 },
  { type: 'Crossing Step', threshold: 5, levels: [0.6] },
];

/** Three rules of one account firing on one move of one market, each to the same Telegram chat. */
async function threeRulesOneMove(account: TestAccount, chatId: number) {
  const market = (await seedEvent(env.database, { title: 'Who wins?' })).markets[0]!;
  const subs = await Promise.all(RULES.map(() => createSubscription(env, account, [{ type: 'In App' }])));
  const detectedAtMs = Date.now();
  const ids = await writeNotificationsOnce(
    env.database.db,
    subs.map((sub, i) => {
      const rule = RULES[i]!;
      const payload = {
        ...pricePayload(account, sub.subscriptionId, sub.watchlistId),
        marketId: market.id,
        marketQuestion: market.question,
        clobTokenId: market.yesTokenId,
        subscriptionTypeConfig: { type: rule.type, config: { params: { threshold_percent: rule.threshold } } },
        detectedValue: 0.62,
        detectedAt: new Date(detectedAtMs).toISOString(),
        detectedAtMs,
        detectionDetails: { detectedValue: 0.62, detectedTimeMs: detectedAtMs, previousValue: 0.57, ...(rule.levels ? { levels: rule.levels } : {}) },
      };
      return {
        accountId: account.userId,
        subscriptionId: sub.subscriptionId,
        type: 'price_notification' as const,
        payload,
        dedupeKey: `${sub.subscriptionId}:${market.id}:${detectedAtMs}`,
        channels: [{ type: 'Telegram' as const, settings: { telegramChatId: chatId } }],
      };
    }),
  );
  return { subs, market, ids: ids as string[] };
}

describe(`one chat message per market and move (${engineName})`, () => {
  it('sends three rules that fired on one move as one Telegram message, each delivery SENT, no Pause on a fired One Time rule', async () => {
    const a = await env.newAccount();
    const chatId = 7001;
    const { subs, market, ids } = await threeRulesOneMove(a, chatId);
    // The Crossing Step rule was One Time: its firing turned it off, as the engine does.
    await env.database.db.execute(
      sql`update subscriptions set trigger_type = 'One Time', enabled = false, status_reason = 'Triggered' where id = ${subs[2]!.subscriptionId}`,
    );
    const worker = await startWorker(env.database, env.config, {
      senders: createSenders({ allowPrivateUrls: true, timeoutMs: 30_000, telegram: { botToken, apiRoot: api.url } }),
    });
    try {
      const rows = () =>
        env.database.rows<{ status: string; attempts: number }>(
          sql`select status, attempts from deliveries where notification_id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`,
        );
      await waitFor(async () => (await rows()).every((r) => r.status === 'SENT'));
      expect(await rows()).toEqual(ids.map(() => ({ status: 'SENT', attempts: 1 })));
    } finally {
      await worker.stop();
    }
    const sent = api.callsTo('sendMessage').filter((c) => c.body.chat_id === chatId);
    expect(sent).toHaveLength(1);
    const lines = (sent[0]!.body.text as string).split('\n');
    expect(lines.slice(0, 4)).toEqual([
      `<b>${market.question} (Yes) 57 % → 62 %</b>`,
      '• ⬆ Crossed above 60 %',
      '• ⬆ Above 55 %',
      '• ⬆ Stepped up past 60 % (steps of 5 %)',
    ]);
    const actions = (sent[0]!.body.reply_markup.inline_keyboard as { callback_data?: string }[][]).flat().flatMap((b) => b.callback_data ?? []);
    const [up, above, step] = subs.map((s) => s.subscriptionId);
    const snoozes = (id: string) => ['1h', '8h', '24h'].map((span) => `snooze:${id}:${span}`);
    expect(actions).toEqual([`pause:${up}`, `delete:${up}`, ...snoozes(up!), `pause:${above}`, `delete:${above}`, ...snoozes(above!)]);
    expect(actions.join(' ')).not.toContain(step!);
  });
});

describe('groupForChat', () => {
  let n = 0;
  const claimed = (over: { chat?: number; market?: string; at?: number; user?: string; type?: string; channel?: 'Telegram' | 'Webhook' }): ClaimedWithContext => ({
    id: `d${++n}`,
    notificationId: `n${n}`,
    position: 0,
    channelType: over.channel ?? 'Telegram',
    settings: over.channel === 'Webhook' ? { webhookUrl: 'https://example.com/hook' } : { telegramChatId: over.chat ?? 1 },
    attempts: 0,
    lease: 'now',
    context: {
      payload: { type: over.type ?? 'price_notification', userId: over.user ?? 'u1', marketId: over.market ?? 'm1', clobTokenId: 't1', detectedAtMs: over.at ?? 1 },
      webhookSecret: 'whsec_x',
      previousWebhookSecret: null,
      rotatedAtMs: null,
      rateLimitedBefore: 0,
    },
  });
  const sizes = (groups: ClaimedWithContext[][]) => groups.map((g) => g.length);

  it('groups one account\'s chat deliveries of one market and move, and nothing else', () => {
    expect(sizes(groupForChat([claimed({}), claimed({}), claimed({})]))).toEqual([3]);
    expect(sizes(groupForChat([claimed({}), claimed({ chat: 2 }), claimed({ market: 'm2' }), claimed({ at: 2 }), claimed({ user: 'u2' })]))).toEqual([1, 1, 1, 1, 1]);
    expect(sizes(groupForChat([claimed({ channel: 'Webhook' }), claimed({ channel: 'Webhook' })]))).toEqual([1, 1]);
    expect(sizes(groupForChat([claimed({ type: 'event_status_notification' }), claimed({ type: 'event_status_notification' })]))).toEqual([1, 1]);
  });

  it('keeps a message within one row of buttons per rule: five rules make two messages', () => {
    expect(sizes(groupForChat(Array.from({ length: 5 }, () => claimed({}))))).toEqual([4, 1]);
  });
});

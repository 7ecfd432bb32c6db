import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { demoWebhooks } from '../db/schema/index.js';
import { writeNotification } from './enqueue.js';
import { demoStatusPayload, noticeSubject, type StatusPayloadBase } from './payloads.js';

/**
 * Every catalog change goes to every active demo webhook, through the same outbox and retry
 * rules as subscriptions, in the event status shape without the subscription and watchlist fields.
 * The dedupe key makes a replay (or a second engine process) write nothing new.
 */
export async function fanOutToDemoWebhooks(db: Db, base: StatusPayloadBase) {
  const hooks = await db.select().from(demoWebhooks).where(eq(demoWebhooks.active, true));
  for (const hook of hooks) {
    await writeNotification(db, {
      accountId: hook.accountId,
      subscriptionId: null,
      type: base.type,
      payload: demoStatusPayload(base, hook.accountId),
      dedupeKey: `demo:${hook.id}:${noticeSubject(base)}`,
      channels: [{ type: 'Webhook', settings: { webhookUrl: hook.url } }],
    });
  }
}

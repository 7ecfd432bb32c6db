import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { demoWebhooks } from '../db/schema/index.js';
import type { EventStatusScope, EventStatusTrigger } from '../domain/enums.js';
import { writeNotification } from './enqueue.js';

export interface StatusPayloadBase {
  type: 'event_status_notification';
  eventStatusScope: EventStatusScope;
  triggerType: EventStatusTrigger;
  createdAt: string;
  fields: { eventId: string; marketId?: string; [key: string]: unknown };
}

/**
 * Every catalog change goes to every active demo webhook, through the same outbox and retry
 * rules as subscriptions, in the event status shape without the subscription and watchlist fields.
 * The dedupe key makes a replay (or a second engine process) write nothing new.
 */
export async function fanOutToDemoWebhooks(db: Db, base: StatusPayloadBase, notice: { scope: string; trigger: string }) {
  const hooks = await db.select().from(demoWebhooks).where(eq(demoWebhooks.active, true));
  for (const hook of hooks) {
    const payload = {
      type: base.type,
      userId: hook.accountId,
      eventStatusScope: base.eventStatusScope,
      triggerType: base.triggerType,
      createdAt: base.createdAt,
      ...base.fields,
      channels: [{ type: 'Webhook' }],
    };
    await writeNotification(db, {
      accountId: hook.accountId,
      subscriptionId: null,
      type: 'event_status_notification',
      payload,
      dedupeKey: `demo:${hook.id}:${notice.scope}:${notice.trigger}:${base.fields.marketId ?? base.fields.eventId}`,
      channels: [{ type: 'Webhook', settings: { webhookUrl: hook.url } }],
    });
  }
}

import { createHash } from 'node:crypto';
import type { DeliveryJob } from './types.js';

/** A batched send's body type (docs/delivery.md "Batched sends"). */
export const DIGEST_NOTIFICATION = 'digest_notification';

/**
 * The body and `webhook-id` of a batched send (quiet hours, a digest): the spec's notification
 * objects, each as this receiver may see it, in the order they fired. The id is made from the
 * batch's notification ids, so every attempt of the same batch carries the same one.
 */
export function digestBody(batch: NonNullable<DeliveryJob['batch']>, ownUrl: string): { id: string; body: Record<string, unknown> } {
  const seen = new Set<string>();
  const items = batch.items.filter((item) => !seen.has(item.notificationId) && seen.add(item.notificationId));
  const id = `digest_${createHash('sha256').update([...seen].sort().join(',')).digest('base64url').slice(0, 27)}`;
  const notifications = items.map((item) => webhookBody(item.payload, ownUrl));
  const userId = notifications.map((n) => n.userId).find((u) => typeof u === 'string');
  return { id, body: { type: DIGEST_NOTIFICATION, ...(userId ? { userId } : {}), reason: batch.kind, count: notifications.length, notifications } };
}

/**
 * What one Webhook receiver is shown of a notification. The stored payload lists every channel
 * of the subscription with its settings, and one stored payload serves all of them; a third-party
 * receiver must not learn the others' credentials (a Discord webhook URL is one, a Telegram chat
 * id nearly), so each channel keeps only its `type`, and the receiving channel its own URL.
 */
export function webhookBody(payload: Record<string, unknown>, ownUrl: string): Record<string, unknown> {
  const { channels } = payload;
  if (!Array.isArray(channels)) return payload;
  return {
    ...payload,
    channels: channels.map((channel: unknown) => {
      const { type, settings } = (channel ?? {}) as { type?: unknown; settings?: { webhookUrl?: unknown } };
      const own = type === 'Webhook' && settings?.webhookUrl === ownUrl;
      return own ? { type, settings: { webhookUrl: ownUrl } } : { type };
    }),
  };
}

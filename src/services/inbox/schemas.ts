import { z } from 'zod';
import { Id } from '../schemas.js';

export const MAX_INBOX_PAGE = 200;

export const ListNotificationsInput = z.strictObject({
  unread: z
    .enum(['true', 'false'], { error: 'unread must be true or false' })
    .transform((v) => v === 'true')
    .optional(),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(MAX_INBOX_PAGE, `limit must be at most ${MAX_INBOX_PAGE}`)
    .default(50),
  before: Id.optional(),
});
export type ListNotificationsInput = z.input<typeof ListNotificationsInput>;

export const NotificationIdInput = z.strictObject({ notificationId: Id });
export type NotificationIdInput = z.input<typeof NotificationIdInput>;

export const StreamResumeInput = z.strictObject({ lastEventId: Id.optional() });

export const SubscriptionHistoryInput = z.strictObject({
  subscriptionId: Id,
  limit: ListNotificationsInput.shape.limit,
  before: Id.optional(),
});
export type SubscriptionHistoryInput = z.input<typeof SubscriptionHistoryInput>;

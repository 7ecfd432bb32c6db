import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { notifications } from '../../db/schema/index.js';
import { notFound } from '../errors.js';

export const NOTIFICATION_NOT_FOUND = 'Notification not found';

/** Another account's notification is "not found", like one that does not exist. */
export async function requireOwnedNotification(on: Queryable, accountId: string, notificationId: string) {
  const [row] = await on
    .select()
    .from(notifications)
    .where(and(eq(notifications.id, notificationId), eq(notifications.accountId, accountId)));
  if (!row) throw notFound(NOTIFICATION_NOT_FOUND, 'notification');
  return row;
}

import { and, asc, desc, eq, gt, isNull, lt, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { notifications } from '../../db/schema/index.js';
import { dbOf, type ServiceContext, type SystemDeps } from '../context.js';
import { parseInput } from '../validate.js';
import { ListNotificationsInput } from './schemas.js';
import { toNotificationView, type NotificationView } from './view.js';

type NotificationRow = typeof notifications.$inferSelect;

/** One page of notifications matching `conditions`, newest first, and the id to continue before. */
export async function notificationPage(
  db: Queryable,
  conditions: SQL[],
  limit: number,
): Promise<{ page: NotificationRow[]; nextBefore: string | null }> {
  const rows = await db
    .select()
    .from(notifications)
    .where(and(...conditions))
    .orderBy(desc(notifications.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return { page, nextBefore: rows.length > limit ? page[page.length - 1]!.id : null };
}

/** The inbox, newest first (ids are time-ordered uuid v7), a page at a time. */
export async function listNotifications({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: ListNotificationsInput;
}): Promise<{ notifications: NotificationView[]; nextBefore: string | null }> {
  const { unread, limit, before } = parseInput(ListNotificationsInput, input);
  const conditions = [eq(notifications.accountId, ctx.account.id)];
  if (unread) conditions.push(isNull(notifications.readAt));
  if (before) conditions.push(lt(notifications.id, before));
  const { page, nextBefore } = await notificationPage(dbOf(ctx), conditions, limit);
  return { notifications: page.map(toNotificationView), nextBefore };
}

const RESUME_LIMIT = 500;

/** The account's notifications after `afterId`, oldest first: what a resumed stream missed. */
export async function listNotificationsAfter({
  ctx,
  afterId,
}: {
  ctx: ServiceContext;
  afterId: string;
}): Promise<NotificationView[]> {
  const rows = await dbOf(ctx)
    .select()
    .from(notifications)
    .where(and(eq(notifications.accountId, ctx.account.id), gt(notifications.id, afterId)))
    .orderBy(asc(notifications.id))
    .limit(RESUME_LIMIT);
  return rows.map(toNotificationView);
}

/** One notification with its account, for the live streams (which route it to that account). */
export async function findNotification({
  deps,
  notificationId,
}: {
  deps: Pick<SystemDeps, 'database'>;
  notificationId: string;
}): Promise<(NotificationView & { accountId: string }) | undefined> {
  const [row] = await deps.database.db.select().from(notifications).where(eq(notifications.id, notificationId));
  return row && { ...toNotificationView(row), accountId: row.accountId };
}

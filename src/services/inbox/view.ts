import type { notifications } from '../../db/schema/index.js';

export interface NotificationView {
  id: string;
  createdAt: string;
  readAt: string | null;
  payload: Record<string, unknown>;
  /** Only on a firing written while its subscription was snoozed: no channel but the inbox had it. */
  snoozedUntil?: string;
}

export function toNotificationView(row: typeof notifications.$inferSelect): NotificationView {
  return {
    id: row.id,
    createdAt: row.createdAt.toISOString(),
    readAt: row.readAt?.toISOString() ?? null,
    payload: row.payload,
    ...(row.snoozedUntil ? { snoozedUntil: row.snoozedUntil.toISOString() } : {}),
  };
}

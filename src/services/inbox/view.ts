import type { notifications } from '../../db/schema/index.js';

export interface NotificationView {
  id: string;
  createdAt: string;
  readAt: string | null;
  payload: Record<string, unknown>;
}

export function toNotificationView(row: typeof notifications.$inferSelect): NotificationView {
  return {
    id: row.id,
    createdAt: row.createdAt.toISOString(),
    readAt: row.readAt?.toISOString() ?? null,
    payload: row.payload,
  };
}

import type { Tx } from '../db/client.js';
import type { ChannelSettings } from '../db/schema/index.js';
import { writeNotificationOnce } from '../delivery/enqueue.js';
import type { ChannelType, NotificationType } from '../domain/enums.js';

export interface ChannelRow {
  position: number;
  type: ChannelType;
  settings: ChannelSettings | null;
}

export interface NewNotification {
  accountId: string;
  subscriptionId: string;
  type: NotificationType;
  payload: Record<string, unknown>;
  dedupeKey: string;
  channels: readonly ChannelRow[];
}

/** The payload's `channels`: each channel's type and settings, as the subscription lists them. */
export function payloadChannels(channels: readonly ChannelRow[]) {
  return channels.map((c) => ({
    type: c.type,
    ...(c.settings && Object.keys(c.settings).length > 0 ? { settings: c.settings } : {}),
  }));
}

/**
 * Writes one notification and one PENDING delivery per channel through the delivery outbox.
 * Answers the notification id, or null when the dedupe key was already written (a replay).
 */
export function insertNotificationWithDeliveries(tx: Tx, n: NewNotification): Promise<string | null> {
  const ordered = [...n.channels].sort((a, b) => a.position - b.position);
  return writeNotificationOnce(tx, { ...n, channels: ordered.map((c) => ({ type: c.type, settings: c.settings })) });
}


import { sql } from 'drizzle-orm';
import type { Database, Tx } from '../db/client.js';
import type { ChannelSettings } from '../db/schema/subscriptions.js';
import { NOTIFICATION_TYPE, type ChannelType } from '../domain/enums.js';
import { newId } from '../services/ids.js';
import { writeNotificationsOnce, type NotificationToWrite } from './enqueue.js';
import { formatSpan, type ChannelHealthRow, type EndpointHealthSettings, type HealthVerdict } from './endpoint-health.js';

// The account's notice that one of its channels is failing or was disabled: a notification of our
// own type (endpoint_health_notification), not a firing of the rule, delivered through the same
// outbox on the account's other channels. It carries no subscription id on the row, so it neither
// shows in the rule's history nor changes its channels' statuses; the payload names the rule.

/**
 * How a notice names a channel without its secrets: a webhook URL's origin only (its path and
 * query often hold a token), other channels by type and position.
 */
export function describeEndpoint(type: ChannelType, settings: ChannelSettings | null, position: number): string {
  if (type === 'Webhook' && settings?.webhookUrl) {
    try {
      return `Webhook ${new URL(settings.webhookUrl).origin} (channel ${position})`;
    } catch {
      // an unparsable URL is shown like any other channel
    }
  }
  return `${type} channel ${position}`;
}

export function enablePath(subscriptionId: string, position: number): string {
  return `/subscription/${encodeURIComponent(subscriptionId)}/channels/${position}/enable`;
}

export function noticePayload(row: ChannelHealthRow, verdict: HealthVerdict, settings: EndpointHealthSettings, now = new Date()) {
  const endpoint = describeEndpoint(row.type, row.settings, row.position);
  const reEnable = { method: 'POST', path: enablePath(row.subscriptionId, row.position) };
  const lastError = row.lastError ?? (verdict.kind === 'disable' ? verdict.reason : null);
  const message =
    verdict.kind === 'disable'
      ? `${endpoint} was disabled: ${verdict.reason}. Last error: ${lastError ?? 'none'}. Fix the endpoint, then re-enable it with ${reEnable.method} ${reEnable.path}.`
      : `${endpoint} has failed every delivery for ${formatSpan(row.failingForMs)}. Last error: ${lastError ?? 'none'}. ` +
        `It will be disabled if it keeps failing for ${formatSpan(settings.ENDPOINT_DISABLE_AFTER_MS)} and ${settings.ENDPOINT_DISABLE_MIN_NOTIFICATIONS} notifications.`;
  return {
    type: NOTIFICATION_TYPE.endpointHealth,
    event: verdict.kind === 'disable' ? 'endpoint_disabled' : 'endpoint_failing',
    userId: row.accountId,
    createdAt: now.toISOString(),
    subscriptionId: row.subscriptionId,
    channel: { position: row.position, type: row.type, endpoint },
    failingSince: row.failingSince === null ? null : new Date(row.failingSince).toISOString(),
    failedNotifications: row.failedNotifications,
    lastError,
    ...(verdict.kind === 'disable' ? { disabledReason: verdict.reason } : {}),
    reEnable,
    message,
  };
}

interface ChannelOfRule {
  subscriptionId: string;
  position: number;
  type: ChannelType;
  settings: ChannelSettings | null;
}

/**
 * Writes one notice per judged channel in the caller's transaction: In App always, and the rule's
 * own chat channels (Telegram, Discord) that are neither the failing one nor disabled.
 */
export async function writeHealthNotices(
  database: Database,
  tx: Tx,
  judged: ReadonlyArray<{ row: ChannelHealthRow; verdict: HealthVerdict }>,
  settings: EndpointHealthSettings,
): Promise<void> {
  if (judged.length === 0) return;
  const ids = sql.join(
    [...new Set(judged.map((j) => j.row.subscriptionId))].map((id) => sql`${id}`),
    sql`, `,
  );
  const chats = await database.rows<ChannelOfRule & Record<string, unknown>>(
    sql`select subscription_id as "subscriptionId", position, type, settings from subscription_channels
        where subscription_id in (${ids}) and type in ('Telegram', 'Discord') and disabled_at is null
        order by subscription_id, position`,
    tx,
  );
  const notices: NotificationToWrite[] = judged.map(({ row, verdict }) => ({
    accountId: row.accountId,
    subscriptionId: null,
    type: NOTIFICATION_TYPE.endpointHealth,
    payload: noticePayload(row, verdict, settings),
    // Each transition is written once (applyVerdict guards it), so the key only has to be unique.
    dedupeKey: `endpoint-health:${row.subscriptionId}:${row.position}:${verdict.kind}:${newId()}`,
    channels: [
      { type: 'In App' as const },
      ...chats
        .filter((c) => c.subscriptionId === row.subscriptionId && c.position !== row.position)
        .map((c) => ({ type: c.type, settings: c.settings })),
    ],
  }));
  await writeNotificationsOnce(tx, notices);
}

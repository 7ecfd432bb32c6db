// What Discord and Telegram both show of a notification, read defensively from the stored payload.

import { encodeButton } from '../../domain/button-actions.js';
import { NOTIFICATION_TYPE } from '../../domain/enums.js';

/** The first line of a test send in chat (POST /channels/test). */
export const TEST_LABEL = 'Test: a sample alert, no rule fired';

export function str(record: unknown, key: string): string | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const value = (record as Record<string, unknown>)[key];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export function num(record: unknown, key: string): number | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const value = (record as Record<string, unknown>)[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function child(record: unknown, key: string): unknown {
  return typeof record === 'object' && record !== null ? (record as Record<string, unknown>)[key] : undefined;
}

export function parseJsonArray(text: string | undefined): unknown[] | undefined {
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined; // the venue sends these as JSON inside a string; a malformed one is just not shown
  }
}

/**
 * An endpoint_health_notification (docs/delivery.md "Endpoint health") or feed_health_notification
 * ("Feed health") as chat shows it: a title and the payload's own message. Undefined for a rule's firing.
 */
export function summarizeHealthNotice(
  payload: Record<string, unknown>,
): { title: string; message: string; reEnableAction?: string } | undefined {
  if (str(payload, 'type') === NOTIFICATION_TYPE.feedHealth) {
    const recovered = str(payload, 'event') === 'feed_recovered';
    return {
      title: recovered ? 'Prices flowing again' : 'Prices may be delayed',
      message: str(payload, 'message') ?? (recovered ? 'The price feed is back.' : 'The price feed is silent; prices may be delayed.'),
    };
  }
  if (str(payload, 'type') !== NOTIFICATION_TYPE.endpointHealth) return undefined;
  const disabled = str(payload, 'event') === 'endpoint_disabled';
  const subscriptionId = str(payload, 'subscriptionId');
  const position = (payload.channel as { position?: unknown } | undefined)?.position;
  const action = disabled && subscriptionId && typeof position === 'number' ? encodeButton('enable', subscriptionId, position) : undefined;
  return {
    title: disabled ? 'Alert channel disabled' : 'Alert channel failing',
    message: str(payload, 'message') ?? 'One of your alert channels is failing.',
    ...(action ? { reEnableAction: action } : {}),
  };
}

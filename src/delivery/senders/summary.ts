// What Discord and Telegram both show of a notification, read defensively from the stored payload.

import { encodeButton } from '../../domain/button-actions.js';

/** The first line of a test send in chat (POST /channels/test). */
export const TEST_LABEL = 'Test: a sample alert, no rule fired';

export interface NotificationSummary {
  kind: 'price' | 'status';
  /** Market question, or the event title when the notification is about a whole event. */
  title: string;
  /** "Crossing Up" or "Market closed". */
  headline: string;
  eventTitle?: string;
  watchlistName?: string;
  /** Detected price as a percent, "53.5%". */
  price?: string;
  threshold?: string;
  /** "Yes 53.5% · No 46.5%" when the payload carries outcomes and prices. */
  outcomes?: string;
  detectedAt?: string;
}

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

export function formatPercent(percent: number): string {
  return `${Number(percent.toFixed(1))}%`;
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

function formatOutcomes(payload: Record<string, unknown>): string | undefined {
  const names = parseJsonArray(str(payload, 'outcomes'));
  const prices = parseJsonArray(str(payload, 'outcomePrices'));
  if (!names || !prices || names.length !== prices.length) return undefined;
  const parts = names.map((name, i) => {
    const price = Number(prices[i]);
    return Number.isFinite(price) ? `${String(name)} ${formatPercent(price * 100)}` : String(name);
  });
  return parts.join(' · ');
}

export function summarizeNotification(payload: Record<string, unknown>): NotificationSummary {
  const eventTitle = str(payload, 'eventTitle');
  const marketQuestion = str(payload, 'marketQuestion');
  const common = {
    eventTitle,
    watchlistName: str(payload, 'watchlistName'),
    detectedAt: str(payload, 'detectedAt'),
  };
  if (str(payload, 'type') === 'event_status_notification') {
    const scope = str(payload, 'eventStatusScope') ?? 'Event';
    const opened = str(payload, 'triggerType') === 'Open';
    return {
      ...common,
      kind: 'status',
      title: (scope === 'Market' ? marketQuestion : undefined) ?? eventTitle ?? 'Untitled event',
      headline: `${scope} ${opened ? 'opened' : 'closed'}`,
      outcomes: formatOutcomes(payload),
    };
  }
  const config = child(payload, 'subscriptionTypeConfig');
  const threshold = num(child(child(config, 'config'), 'params'), 'threshold_percent');
  const detected = num(payload, 'detectedValue');
  return {
    ...common,
    kind: 'price',
    title: marketQuestion ?? eventTitle ?? 'Untitled market',
    headline: str(config, 'type') ?? 'Price alert',
    price: detected === undefined ? undefined : formatPercent(detected * 100),
    threshold: threshold === undefined ? undefined : formatPercent(threshold),
  };
}

/**
 * An endpoint_health_notification (docs/delivery.md "Endpoint health") or feed_health_notification
 * ("Feed health") as chat shows it: a title and the payload's own message. Undefined for a rule's firing.
 */
export function summarizeHealthNotice(
  payload: Record<string, unknown>,
): { title: string; message: string; reEnableAction?: string } | undefined {
  if (str(payload, 'type') === 'feed_health_notification') {
    const recovered = str(payload, 'event') === 'feed_recovered';
    return {
      title: recovered ? 'Prices flowing again' : 'Prices may be delayed',
      message: str(payload, 'message') ?? (recovered ? 'The price feed is back.' : 'The price feed is silent; prices may be delayed.'),
    };
  }
  if (str(payload, 'type') !== 'endpoint_health_notification') return undefined;
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

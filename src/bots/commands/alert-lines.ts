import { DEFAULT_TRIGGER_INTERVAL, STATUS_REASON, type SubscriptionType } from '../../domain/enums.js';
import { encodeButton } from '../../domain/button-actions.js';
import { humanUtc } from '../../delivery/message/facts.js';
import type { SubscriptionView } from '../../services/subscriptions/index.js';
import type { BotButton } from './types.js';

// An alert as a person reads it in a list: what it watches by name, the condition in words, how
// often it may repeat, its status in words and when it last fired. No ids.

const CONDITION: Record<SubscriptionType, (p: string) => string> = {
  Crossing: (p) => `crosses ${p} either way`,
  'Crossing Up': (p) => `rises above ${p}`,
  'Crossing Down': (p) => `falls below ${p}`,
  'Crossing Step': (p) => `moves by ${p} steps`,
  'Greater Than': (p) => `is above ${p}`,
  'Less Than': (p) => `is below ${p}`,
  'New or closed events and markets': () => 'events and markets open or close',
};

export function conditionWords(s: SubscriptionView): string {
  const params = 'params' in s.rule ? s.rule.params : undefined;
  return CONDITION[s.rule.type](params ? `${params.thresholdPercent}%` : '');
}

export function statusWords(s: SubscriptionView): string {
  if (s.status.enabled) return 'active';
  switch (s.status.reason) {
    case STATUS_REASON.triggered:
      return 'fired (once)';
    case STATUS_REASON.marketClosed:
      return 'off: market closed';
    case STATUS_REASON.eventClosed:
      return 'off: event closed';
    default:
      return 'paused';
  }
}

/** `"Will X?" rises above 60% · every 30m · active · last fired 2026-11-20 14:03:00 UTC` */
export function alertLine(s: SubscriptionView): string {
  const what = s.marketQuestion ?? s.eventTitle ?? `watchlist ${s.watchlistName}`;
  const repeat = s.triggerType === 'One Time' ? 'once' : `every ${s.triggerInterval ?? DEFAULT_TRIGGER_INTERVAL}`;
  const fired = s.lastTriggeredAt ? `last fired ${humanUtc(s.lastTriggeredAt)}` : 'not fired yet';
  return `"${what}" ${conditionWords(s)} · ${repeat} · ${statusWords(s)} · ${fired}`;
}

/** The buttons for the alert numbered `n` on a page: toggle it, delete it. Empty when its id does not fit a button. */
export function numberedAlertButtons(s: SubscriptionView, n: number): BotButton[] {
  const toggle = s.status.enabled
    ? { label: `${n} ⏸ Pause`, action: encodeButton('pause', s.subscriptionId) }
    : { label: `${n} ▶ Resume`, action: encodeButton('resume', s.subscriptionId) };
  const remove = { label: `${n} 🗑`, action: encodeButton('delete', s.subscriptionId) };
  return [toggle, remove].filter((b): b is BotButton => b.action !== undefined);
}

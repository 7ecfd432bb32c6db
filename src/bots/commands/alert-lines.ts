import { DEFAULT_TRIGGER_INTERVAL, STATUS_REASON, type SubscriptionType } from '../../domain/enums.js';
import { encodeButton } from '../../domain/button-actions.js';
import { humanUtc } from '../../delivery/message/facts.js';
import type { SubscriptionView } from '../../services/subscriptions/index.js';
import type { BotButton } from './types.js';

// An alert as a person reads it in a list: what it watches by name, the condition in words, how
// often it may repeat, its status in words and when it last fired. No ids.

type Params = SubscriptionView['subscriptionTypeConfig']['config']['params'];
const pct = (p: Params) => `${p.threshold_percent}%`;
const points = (p: Params) => `${p.threshold_percent} points within ${p.window}`;

const CONDITION: Record<SubscriptionType, (p: Params) => string> = {
  Crossing: (p) => `crosses ${pct(p)} either way`,
  'Crossing Up': (p) => `rises above ${pct(p)}`,
  'Crossing Down': (p) => `falls below ${pct(p)}`,
  'Crossing Step': (p) => `moves by ${pct(p)} steps`,
  'Greater Than': (p) => `is above ${pct(p)}`,
  'Less Than': (p) => `is below ${pct(p)}`,
  'New or closed events and markets': () => 'events and markets open or close',
  'Moves Up By': (p) => `rises ${points(p)}`,
  'Moves Down By': (p) => `falls ${points(p)}`,
  'Moves By': (p) => `moves ${points(p)}`,
  'Large Trade': (p) => `trades $${(p.min_usd ?? 0).toLocaleString('en-US')} or more${p.side ? ` (${p.side === 'BUY' ? 'buys' : 'sells'})` : ''} at once`,
  'Volume Spike': (p) => `trades ${p.multiple}× its usual hourly volume`,
  Resolution: () => 'has its result proposed, disputed or settled',
  'Closing Soon': (p) => `closes within ${p.hours_before}h`,
};

/** A rule as a short label: "Crossing Up 60%", "Moves Up By 10 pts in 1h", "Large Trade $25,000". */
export function ruleLabel(s: SubscriptionView): string {
  const p: Params = s.subscriptionTypeConfig.config.params;
  if (p.window) return `${s.rule.type} ${p.threshold_percent} pts in ${p.window}`;
  if (p.threshold_percent !== undefined) return `${s.rule.type} ${p.threshold_percent}%`;
  if (p.min_usd !== undefined) return `${s.rule.type} $${p.min_usd.toLocaleString('en-US')}${p.side ? ` ${p.side}` : ''}`;
  if (p.multiple !== undefined) return `${s.rule.type} ${p.multiple}×`;
  if (p.hours_before !== undefined) return `${s.rule.type} ${p.hours_before}h`;
  return s.rule.type;
}

export function conditionWords(s: SubscriptionView): string {
  return ruleWords(s.subscriptionTypeConfig.type, s.subscriptionTypeConfig.config.params);
}

/** A rule's condition in words from its type and params: a stored alert's, or one being typed. */
export const ruleWords = (type: SubscriptionType, params: Params): string => CONDITION[type](params);

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

import { alertLine } from '../../delivery/message/facts.js';
import type { DeliveryView, HistoryEntry } from '../../services/inbox/index.js';
import { cutText } from '../../text/cut.js';

/** How many firings `/alerts <id>` shows: a chat answer, not a report (REST pages the rest). */
export const HISTORY_SHOWN = 5;

const MAX_REASON = 100;

/** `2026-11-24T01:30:05.123Z` → `2026-11-24 01:30:05 UTC`: chat users live in many time zones. */
const when = (iso: string): string => `${iso.slice(0, 19).replace('T', ' ')} UTC`;

const tries = (n: number): string => `${n} ${n === 1 ? 'try' : 'tries'}`;

/**
 * Why an attempt failed, short: `HTTP 503` when the error only repeats the status and a response
 * body; otherwise the sender's own sentence ("timed out after 5000 ms", "Discord webhook was deleted…").
 */
function reason(attempt: DeliveryView['attempts'][number] | undefined): string | undefined {
  if (!attempt) return undefined;
  const { statusCode, error } = attempt;
  if (statusCode !== null && (!error || error.startsWith('HTTP '))) return `HTTP ${statusCode}`;
  if (!error) return undefined;
  return cutText(error, MAX_REASON);
}

/** A delivery's status as a person says it: "delivered", "failed after 3 tries (HTTP 503)", "waiting". */
export function deliveryWords(d: DeliveryView): string {
  const last = reason(d.attempts.at(-1));
  switch (d.status) {
    case 'SENT':
      return 'delivered';
    case 'READ':
      return 'read';
    case 'BLOCKED_BY_USER':
      return 'blocked by the user';
    case 'FAILED': {
      const made = d.attempts.length > 0 ? ` after ${tries(d.attempts.length)}` : '';
      return `failed${made}${last ? ` (${last})` : ''}`;
    }
    case 'PENDING':
      return d.attempts.length === 0 ? 'waiting' : `waiting to retry (${tries(d.attempts.length)} so far${last ? `, last: ${last}` : ''})`;
  }
}

/** One firing: when, and what it said as the alert words it, then each channel's delivery on its own line. */
function describeFiring(entry: HistoryEntry): string {
  const channels = entry.deliveries.map((d) => `   ${d.channel}: ${deliveryWords(d)}`);
  return [`• ${when(entry.detectedAt)} — ${alertLine(entry.payload)}`, ...channels].join('\n');
}

/** `/alerts <id>`: the rule's last firings, newest first, or that it has not fired. */
export function describeHistory(subscriptionId: string, page: { notifications: HistoryEntry[]; nextBefore: string | null }): string {
  const firings = page.notifications;
  if (firings.length === 0) return `Alert ${subscriptionId} has not fired yet.`;
  const head = page.nextBefore
    ? `The last ${firings.length} firings of alert ${subscriptionId} (older ones are in the REST API):`
    : `Alert ${subscriptionId} fired ${firings.length === 1 ? 'once' : `${firings.length} times`}:`;
  return [head, ...firings.map(describeFiring)].join('\n');
}

import { SNOOZE_SPANS, snoozeSubscription, type SnoozeSpan } from '../../services/subscriptions/index.js';
import { alertIdParam, textOf } from './params.js';
import type { Command } from './types.js';

const SPAN_LABELS: Record<SnoozeSpan, string> = { '1h': '1 hour', '8h': '8 hours', '24h': '24 hours', '1w': '1 week' };

/** "2025-10-01 12:00 UTC": when the snooze ends, in the zone every alert message uses. */
function utcMinute(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The typed twin of the Snooze buttons under an alert: only the inbox gets its firings for a while. */
export const snoozeCommand: Command = {
  name: 'snooze',
  params: [
    alertIdParam('The alert to snooze'),
    {
      kind: 'choice',
      name: 'for',
      help: 'How long',
      what: 'snooze length',
      choices: SNOOZE_SPANS.map((span) => ({ word: span, label: SPAN_LABELS[span] })),
    },
  ],
  summary: 'Snooze an alert: for a while it fills only your inbox, no chat or webhook messages',
  // A tap may come from anyone in a group: its answer (or "not found") is for the tapper alone.
  answersTapPrivately: true,
  async run({ ctx, values }) {
    const id = textOf(values, 'id')!;
    const view = await snoozeSubscription({ ctx, input: { subscriptionId: id, body: { for: textOf(values, 'for') as SnoozeSpan } } });
    return { text: `Snoozed alert ${id} until ${utcMinute(view.snoozedUntil!)}: until then its alerts go to your inbox only.` };
  },
};

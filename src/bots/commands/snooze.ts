import { SNOOZE_SPANS, snoozeSubscription, type SnoozeSpan } from '../../services/subscriptions/index.js';
import { getAccountPreferences } from '../../services/accounts/index.js';
import { localMinute } from './local-time.js';
import { alertIdParam, textOf } from './params.js';
import type { Command } from './types.js';

const SPAN_LABELS: Record<SnoozeSpan, string> = { '1h': '1 hour', '8h': '8 hours', '24h': '24 hours', '1w': '1 week' };


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
    // Until when, in the person's own zone (UTC until they set one), named so it is never misread.
    const { timezone } = await getAccountPreferences({ ctx });
    return { text: `Snoozed alert ${id} until ${localMinute(view.snoozedUntil!, timezone)}: until then its alerts go to your inbox only.` };
  },
};

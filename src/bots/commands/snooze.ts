import { SNOOZE_SPANS, snoozeSubscription, type SnoozeInput, type SnoozeSpan } from '../../services/subscriptions/index.js';
import { getAccountPreferences } from '../../services/accounts/index.js';
import { instantOfLocal, localMinute } from './local-time.js';
import { alertIdParam, textOf } from './params.js';
import type { Command } from './types.js';
import { UsageError } from './types.js';

const SPAN_LABELS: Record<SnoozeSpan, string> = { '1h': '1 hour', '8h': '8 hours', '24h': '24 hours', '1w': '1 week' };

/** The typed twin of the Snooze buttons under an alert: only the inbox gets its firings for a while. */
export const snoozeCommand: Command = {
  name: 'snooze',
  params: [
    alertIdParam('The alert to snooze'),
    {
      kind: 'choice',
      name: 'for',
      help: 'How long, or until a time',
      what: 'snooze length',
      choices: [...SNOOZE_SPANS.map((span) => ({ word: span, label: SPAN_LABELS[span] })), { word: 'until', label: 'Until a time' }],
    },
    { kind: 'text', name: 'time', word: 'YYYY-MM-DD HH:MM', help: 'With until: a date and time in your time zone, like 2026-12-01 09:00', optional: true, rest: true },
  ],
  summary: 'Snooze an alert: your inbox only for a while, no chat or webhook',
  // A tap may come from anyone in a group: its answer (or "not found") is for the tapper alone.
  answersTapPrivately: true,
  async run({ ctx, values }) {
    const id = textOf(values, 'id')!;
    const span = textOf(values, 'for')!;
    const time = textOf(values, 'time');
    // Until when, in the person's own zone (UTC until they set one), named so it is never misread.
    const { timezone } = await getAccountPreferences({ ctx });
    let body: SnoozeInput;
    if (span === 'until') {
      const until = time === undefined ? undefined : instantOfLocal(time, timezone);
      if (until === undefined) {
        const how = `as YYYY-MM-DD HH:MM in your time zone (${timezone}), like 2026-12-01 09:00`;
        throw new UsageError(time === undefined ? `Give the time ${how}.` : `"${time}" is not a date and time: write it ${how}.`);
      }
      body = { until };
    } else {
      if (time !== undefined) throw new UsageError(`A snooze of ${span} takes nothing after it; to snooze until a time, write until before it.`);
      body = { for: span as SnoozeSpan };
    }
    const view = await snoozeSubscription({ ctx, input: { subscriptionId: id, body } });
    return { text: `Snoozed alert ${id} until ${localMinute(view.snoozedUntil!, timezone)}: until then its alerts go to your inbox only.` };
  },
};

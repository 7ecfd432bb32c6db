import { enableChannel } from '../../services/subscriptions/index.js';
import { alertIdParam, numberOf, textOf } from './params.js';
import type { Command } from './types.js';

export const reEnabledWords = (type: string): string =>
  `Re-enabled ✓: the ${type === 'Webhook' ? 'webhook' : `${type} channel`} will be tried again on the next alert`;

/** The typed twin of the Re-enable button under an "Alert channel disabled" notice. */
export const enableCommand: Command = {
  name: 'enable',
  params: [
    alertIdParam('The alert the notice names'),
    { kind: 'integer', name: 'channel', word: 'channel number', help: 'The channel number the notice names', what: 'channel number', min: 0, max: 999 },
  ],
  summary: 'Turn an alert channel disabled for failing back on',
  // A tap may come from anyone in a group: its answer (or "not found") is for the tapper alone.
  answersTapPrivately: true,
  async run({ ctx, values }) {
    const view = await enableChannel({ ctx, input: { subscriptionId: textOf(values, 'id')!, position: numberOf(values, 'channel') } });
    return { text: reEnabledWords(view.type) };
  },
};

import { enableChannel } from '../../services/subscriptions/index.js';
import { UsageError, type Command } from './types.js';

export const reEnabledWords = (type: string): string =>
  `Re-enabled ✓: the ${type === 'Webhook' ? 'webhook' : `${type} channel`} will be tried again on the next alert`;

/** The typed twin of the Re-enable button under an "Alert channel disabled" notice. */
export const enableCommand: Command = {
  name: 'enable',
  usage: 'enable <alert id> <channel number>',
  summary: 'Turn an alert channel disabled for failing back on',
  // A tap may come from anyone in a group: its answer (or "not found") is for the tapper alone.
  answersTapPrivately: true,
  async run({ ctx, args }) {
    const [subscriptionId, positionWord] = args;
    if (!subscriptionId || positionWord === undefined || args.length > 2) throw new UsageError();
    if (!/^\d{1,3}$/.test(positionWord)) {
      throw new UsageError(`"${positionWord}" is not a channel number: use the number the notice names, like 1.`);
    }
    const view = await enableChannel({ ctx, input: { subscriptionId, position: Number(positionWord) } });
    return { text: reEnabledWords(view.type) };
  },
};

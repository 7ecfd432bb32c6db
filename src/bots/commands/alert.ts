import type { PriceRuleType, TriggerInterval } from '../../domain/enums.js';
import type { ServiceContext } from '../../services/context.js';
import { countRecentFirings, createMarketAlert } from '../../services/subscriptions/index.js';
import { chatChannel, describeSubscription, listWords } from './shared.js';
import { UsageError, type Command } from './types.js';

export const ALERT_TYPES: Record<string, PriceRuleType> = {
  up: 'Crossing Up',
  down: 'Crossing Down',
  cross: 'Crossing',
  step: 'Crossing Step',
  above: 'Greater Than',
  below: 'Less Than',
};
const INTERVALS: readonly TriggerInterval[] = ['5m', '30m', '60m', '6h', '12h', '24h'];

function parseTrigger(words: string[]): { triggerType: 'One Time' | 'Recurring'; triggerInterval?: TriggerInterval } {
  if (words.length === 0) return { triggerType: 'Recurring' };
  if (words.length === 1 && words[0] === 'once') return { triggerType: 'One Time' };
  const interval = words[1] as TriggerInterval;
  if (words.length === 2 && words[0] === 'every' && INTERVALS.includes(interval)) {
    return { triggerType: 'Recurring', triggerInterval: interval };
  }
  throw new UsageError(`End with "once" or "every ${INTERVALS.join('|')}".`);
}

export const alertCommand: Command = {
  name: 'alert',
  usage: `alert <market id> <${Object.keys(ALERT_TYPES).join('|')}> <percent> [once | every ${INTERVALS.join('|')}]`,
  summary: 'Alert this chat when a market price moves',
  async run({ ctx, chat, args }) {
    const [marketId, typeWord, percentWord, ...rest] = args;
    if (!marketId || !typeWord || !percentWord) throw new UsageError();
    const type = Object.hasOwn(ALERT_TYPES, typeWord.toLowerCase()) ? ALERT_TYPES[typeWord.toLowerCase()] : undefined;
    if (!type) throw new UsageError(`"${typeWord}" is not an alert type: use ${listWords(Object.keys(ALERT_TYPES))}.`);
    const percent = Number(percentWord.replace(/%$/, ''));
    if (!Number.isFinite(percent)) {
      throw new UsageError(`"${percentWord}" is not a number: write the percent with digits and a dot, like 60 or 60.5.`);
    }
    const created = await createMarketAlert({
      ctx,
      input: { marketId, type, thresholdPercent: percent, ...parseTrigger(rest.map((w) => w.toLowerCase())), channel: chatChannel(chat) },
    });
    const lookBack = await lookBackLine(ctx, created.subscriptionId);
    return {
      text: `Alert created:\n${describeSubscription(created)}${lookBack ? `\n${lookBack}` : ''}`,
      buttons: [[
        { label: 'Pause', action: `pause:${created.subscriptionId}` },
        { label: 'Delete', action: `delete:${created.subscriptionId}` },
      ]],
    };
  },
};

/**
 * "Would have fired N times": a hint on top of a created alert, so a failure or a market with no
 * recorded prices yet leaves the line out (logged once) and never touches the alert itself.
 */
async function lookBackLine(ctx: ServiceContext, subscriptionId: string): Promise<string | undefined> {
  try {
    const count = await countRecentFirings({ ctx, input: { subscriptionId } });
    if (count === null) return undefined;
    if (count === 0) return 'In the last 7 days this alert would not have fired.';
    return `In the last 7 days this alert would have fired ${count} time${count === 1 ? '' : 's'}.`;
  } catch (err) {
    ctx.logger.warn({ err, subscriptionId }, 'alert look-back (dry run) failed; reply sent without it');
    return undefined;
  }
}

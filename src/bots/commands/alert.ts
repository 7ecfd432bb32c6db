import { DEFAULT_TRIGGER_INTERVAL, TRIGGER_INTERVALS, type PriceRuleType, type TriggerInterval } from '../../domain/enums.js';
import type { ServiceContext } from '../../services/context.js';
import { findMarketId } from '../../services/search/index.js';
import { countRecentFirings, createMarketAlert, THRESHOLD_PERCENT } from '../../services/subscriptions/index.js';
import { numberOf, textOf, type Param } from './params.js';
import { alertButtons, chatChannel, describeSubscription } from './shared.js';
import type { Command } from './types.js';

/** The direction words chat uses for each price rule (typed, and in the guided flow's buttons). */
export const ALERT_TYPES: Record<string, PriceRuleType> = {
  up: 'Crossing Up',
  down: 'Crossing Down',
  cross: 'Crossing',
  step: 'Crossing Step',
  above: 'Greater Than',
  below: 'Less Than',
};
// Chat offers a cool-down between repeats; no cool-down at all (0m) stays a REST choice.
export const INTERVALS = TRIGGER_INTERVALS.filter((i) => i !== '0m');
export const ONCE = 'once';

const PARAMS: readonly Param[] = [
  { kind: 'text', name: 'market', word: 'market id', help: 'The market (type to search), its id, slug or link', autocomplete: 'market' },
  { kind: 'choice', name: 'type', help: 'When to alert', what: 'direction', choices: Object.entries(ALERT_TYPES).map(([word, label]) => ({ word, label })) },
  { kind: 'number', name: 'percent', help: 'The price, in percent', what: 'percentage', min: THRESHOLD_PERCENT.above, max: THRESHOLD_PERCENT.below, exclusive: true },
  {
    kind: 'choice',
    name: 'repeat',
    help: `How often it may alert again (every ${DEFAULT_TRIGGER_INTERVAL} by default)`,
    what: 'repeat',
    word: `once | every ${INTERVALS.join('|')}`,
    optional: true,
    rest: true,
    choices: [{ word: ONCE, label: 'Only once' }, ...INTERVALS.map((i) => ({ word: `every ${i}`, label: `At most every ${i}` }))],
  },
];

export function trigger(repeat: string | undefined): { triggerType: 'One Time' | 'Recurring'; triggerInterval?: TriggerInterval } {
  if (repeat === undefined) return { triggerType: 'Recurring' };
  if (repeat === ONCE) return { triggerType: 'One Time' };
  return { triggerType: 'Recurring', triggerInterval: repeat.slice('every '.length) as TriggerInterval };
}

export const alertCommand: Command = {
  name: 'alert',
  params: PARAMS,
  summary: 'Alert this chat when a market price moves',
  async run({ ctx, chat, values }) {
    const created = await createMarketAlert({
      ctx,
      input: {
        // An id, a slug or a venue link: the shortcut takes what a person has at hand.
        marketId: await findMarketId({ ctx, input: { ref: textOf(values, 'market')! } }),
        type: ALERT_TYPES[textOf(values, 'type')!]!,
        thresholdPercent: numberOf(values, 'percent'),
        ...trigger(textOf(values, 'repeat')),
        channel: chatChannel(chat),
      },
    });
    const lookBack = await lookBackLine(ctx, created.subscriptionId);
    return {
      text: `Alert created:\n${describeSubscription(created)}${lookBack ? `\n${lookBack}` : ''}`,
      buttons: alertButtons(created.subscriptionId, 'Pause', 'Delete'),
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

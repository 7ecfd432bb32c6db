import { DEFAULT_TRIGGER_INTERVAL, isPriceRuleType, TRIGGER_INTERVALS, type TriggerInterval } from '../../domain/enums.js';
import type { ServiceContext } from '../../services/context.js';
import { findMarketId } from '../../services/search/index.js';
import { countRecentFirings, createMarketAlert } from '../../services/subscriptions/index.js';
import { CONDITION_FORMS, parseCondition, typeConfigOf } from './alert-condition.js';
import { textOf, type Param } from './params.js';
import { alertButtons, chatChannel, describeSubscription } from './shared.js';
import type { Command } from './types.js';

// Chat offers a cool-down between repeats; no cool-down at all (0m) stays a REST choice.
export const INTERVALS = TRIGGER_INTERVALS.filter((i) => i !== '0m');
export const ONCE = 'once';

const PARAMS: readonly Param[] = [
  { kind: 'text', name: 'market', word: 'market id', help: 'The market (type to search), its id, slug or link', autocomplete: 'market' },
  {
    kind: 'text',
    name: 'condition',
    help: 'When to alert: up 60, jumps 10 in 1h, trade 25k buy, volume 3x, resolution, closing 24h…',
    autocomplete: 'condition',
    // The repeat after it starts with one of these words; the condition never holds them.
    until: ['once', 'every'],
    detail: CONDITION_FORMS,
  },
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
  summary: 'Alert this chat when a market moves, trades big, resolves or nears its close',
  async run({ ctx, chat, values }) {
    // The words first: a misspelt condition is answered before any market lookup.
    const condition = parseCondition(textOf(values, 'condition')!);
    const created = await createMarketAlert({
      ctx,
      input: {
        // An id, a slug or a venue link: the shortcut takes what a person has at hand.
        marketId: await findMarketId({ ctx, input: { ref: textOf(values, 'market')! } }),
        subscriptionTypeConfig: typeConfigOf(condition),
        ...trigger(textOf(values, 'repeat')),
        channel: chatChannel(chat),
      },
    });
    // A dry run replays price rules only: trades, volume and catalog changes have no history to replay.
    const lookBack = isPriceRuleType(condition.type) ? await lookBackLine(ctx, created.subscriptionId) : undefined;
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

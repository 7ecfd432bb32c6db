import { DEFAULT_TRIGGER_INTERVAL, type ChannelType, type PriceRuleType, type TriggerInterval } from '../../domain/enums.js';
import type { ServiceContext } from '../context.js';
import { findMarket } from '../search/lookup.js';
import { THRESHOLD_PERCENT } from './schemas.js';

// The facts a guided alert shows before it is saved: which market and outcome, its price now,
// thresholds worth offering, and the condition, delivery and repeat said in words. The bots
// render these; the rules for them live here once.

export interface AlertDraftMarket {
  id: string;
  question: string;
  eventTitle: string;
  /** The outcome price rules watch: the market's first one ("Yes"). */
  outcome: string;
  /** Its price now in percent, or null when the catalog has none yet. */
  pricePercent: number | null;
}

/** A market as the guided alert shows it: the catalog's market (`findMarket`), in the draft's words. */
export async function marketForAlert({ ctx, input }: { ctx: Pick<ServiceContext, 'database' | 'tx'>; input: { marketId: string } }): Promise<AlertDraftMarket> {
  const market = await findMarket({ ctx, input });
  const price = Number(market.outcomePrices[0] ?? market.lastTradePrice ?? NaN);
  return {
    id: market.id,
    question: market.question,
    eventTitle: market.eventTitle,
    outcome: market.outcomes[0] ?? 'Yes',
    pricePercent: Number.isFinite(price) ? roundPercent(price * 100) : null,
  };
}

const roundPercent = (p: number) => Math.round(p * 10) / 10;

/**
 * Thresholds a person would pick: multiples of 5, with single points near the edges where 5 is
 * too coarse (a market at 97 % can still cross 98 and 99). Inside the rule's open bounds.
 */
const LEVELS: readonly number[] = [1, 2, 3, 4, ...Array.from({ length: 19 }, (_, i) => (i + 1) * 5), 96, 97, 98, 99].filter(
  (l) => l > THRESHOLD_PERCENT.above && l < THRESHOLD_PERCENT.below,
);
const STEP_SIZES: readonly number[] = [1, 2, 5, 10];
const PRESETS = 3;
const MIDDLE = 50;

/**
 * The thresholds offered for a rule type around the current price: the next levels above it for
 * a rise, below it for a fall, both sides for either way, and step sizes for steps. Ascending.
 */
export function thresholdPresets(type: PriceRuleType, pricePercent: number | null): number[] {
  if (type === 'Crossing Step') return [...STEP_SIZES];
  const price = pricePercent ?? MIDDLE;
  const above = LEVELS.filter((l) => l > price);
  const below = LEVELS.filter((l) => l < price);
  const pick = (() => {
    switch (type) {
      case 'Crossing Up':
      case 'Greater Than':
        return above.length > 0 ? above.slice(0, PRESETS) : below.slice(-PRESETS);
      case 'Crossing Down':
      case 'Less Than':
        return below.length > 0 ? below.slice(-PRESETS) : above.slice(0, PRESETS);
      case 'Crossing':
        return [...below.slice(-2), ...above.slice(0, 2)];
    }
  })();
  return [...pick].sort((a, b) => a - b);
}

const CONDITION: Record<PriceRuleType, (t: string) => string> = {
  'Crossing Up': (t) => `rises above ${t}%`,
  'Crossing Down': (t) => `falls below ${t}%`,
  Crossing: (t) => `crosses ${t}% either way`,
  'Crossing Step': (t) => `moves across a multiple of ${t}% (each ${t}-point step)`,
  'Greater Than': (t) => `is above ${t}%`,
  'Less Than': (t) => `is below ${t}%`,
};

/** The condition as a sentence's end: "rises above 60%". */
export const conditionWords = (type: PriceRuleType, thresholdPercent: number): string => CONDITION[type](String(thresholdPercent));

/** Where an alert with this channel is delivered, as the confirmation says it. */
export function deliveryWords(type: ChannelType): string {
  switch (type) {
    case 'Telegram':
      return 'this Telegram chat';
    case 'Discord':
      return 'this Discord channel';
    case 'Webhook':
      return 'your webhook';
    case 'In App':
      return 'your Oddswatch inbox (/inbox)';
  }
}

/** How often the alert may fire again. */
export function repeatWords(trigger: { triggerType: 'One Time' | 'Recurring'; triggerInterval?: TriggerInterval }): string {
  if (trigger.triggerType === 'One Time') return 'only once';
  return `at most once every ${trigger.triggerInterval ?? DEFAULT_TRIGGER_INTERVAL}`;
}

import {
  CLOSING_SOON_HOURS,
  CLOSING_SOON_TYPE,
  LARGE_TRADE_TYPE,
  MOVE_WINDOWS,
  RESOLUTION_TYPE,
  VOLUME_SPIKE_TYPE,
  type MoveRuleType,
  type PriceRuleType,
  type SubscriptionType,
} from '../../domain/enums.js';
import type { ExtraRuleParams } from '../../domain/rule-params.js';
import { SubscriptionTypeConfig, THRESHOLD_PERCENT, type SubscriptionTypeConfigInput } from '../../services/subscriptions/index.js';
import { unparsed } from '../../services/validate.js';
import { ruleWords } from './alert-lines.js';
import { checkValue, type NumberParam } from './params.js';
import { listWords } from './shared.js';
import { UsageError } from './types.js';

// The condition of `/alert <market> <condition>`, in words: `up 60`, `jumps 10 in 1h`,
// `trade 25k buy`, `volume 3x`, `resolution`, `closing 24h`. One grammar for Telegram's typed
// words and Discord's `condition:` option (whose autocomplete offers these forms too). It reads
// the words only: whether a value is allowed (a window, a multiple, the hours before closing) is
// the subscription schema's to say, worded for chat in chat-words.ts.

/** The direction words of the spec's price rules (typed, and in the guided flow's buttons). */
export const ALERT_TYPES: Record<string, PriceRuleType> = {
  up: 'Crossing Up',
  down: 'Crossing Down',
  cross: 'Crossing',
  step: 'Crossing Step',
  above: 'Greater Than',
  below: 'Less Than',
};
const MOVE_TYPES: Record<string, MoveRuleType> = { jumps: 'Moves Up By', drops: 'Moves Down By', moves: 'Moves By' };
const TRADE = 'trade';
const VOLUME = 'volume';
const RESOLUTION = 'resolution';
const CLOSING = 'closing';
const IN_WORDS = new Set(['in', 'within']);
const SIDES: Record<string, 'BUY' | 'SELL'> = { buy: 'BUY', buys: 'BUY', sell: 'SELL', sells: 'SELL' };

/** A price rule's threshold, inside the schema's open bounds (its refusal names the word at once). */
export const PERCENT: NumberParam = { kind: 'number', name: 'percent', help: '', what: 'percentage', min: THRESHOLD_PERCENT.above, max: THRESHOLD_PERCENT.below, exclusive: true };
const POINTS: NumberParam = { ...PERCENT, name: 'points', what: 'number of points' };

/** Every first word a condition may start with, in the order /help and the refusal list them. */
const CONDITION_WORDS = [...Object.keys(ALERT_TYPES), ...Object.keys(MOVE_TYPES), TRADE, VOLUME, RESOLUTION, CLOSING];

/** A condition read from words: the rule type and its params as the REST API names them (not yet checked against the schema). */
export interface Condition {
  type: SubscriptionType;
  params: { threshold_percent?: number } & Omit<ExtraRuleParams, 'window' | 'hours_before'> & { window?: string; hours_before?: number };
}

/**
 * What each form looks like, for /help: one example each (a refusal lists the allowed windows and
 * hours; Discord's /help is near its 2,000 characters, so no more here).
 */
export const CONDITION_FORMS = [
  `${Object.keys(ALERT_TYPES).join('|')} 60`,
  `${Object.keys(MOVE_TYPES).join('|')} 10 in 1h`,
  `${TRADE} 25k [buy|sell]`,
  `${VOLUME} 3x`,
  RESOLUTION,
  `${CLOSING} 24h`,
].join(' · ');

const DOLLARS = /^\$?(\d+(?:\.\d+)?|\d{1,3}(?:,\d{3})+)([km])?$/;
const MULTIPLE = /^(\d+(?:\.\d+)?|\.\d+)[x×]?$/;
const HOURS = /^(\d+(?:\.\d+)?)(h|d)?$/;

/** A dollar amount as a person writes it: `25000`, `25,000`, `$25k`, `1.5m`. */
export function dollars(word: string): number {
  const m = DOLLARS.exec(word);
  if (!m) throw new UsageError(`${word} is not a dollar amount: write it like 25000, 25k or 1.5m.`);
  const scale = m[2] === 'k' ? 1_000 : m[2] === 'm' ? 1_000_000 : 1;
  // Cents at most: 2.3k is 2300, not 2299.9999999999995.
  return Math.round(Number(m[1]!.replace(/,/g, '')) * scale * 100) / 100;
}

function needs(ok: boolean, sentence: string): void {
  if (!ok) throw new UsageError(sentence);
}

/** The words of a condition (`jumps 10 in 1h`) as a rule; a word that cannot be read throws a UsageError naming it and the fix. */
export function parseCondition(text: string): Condition {
  const [head = '', ...args] = text.trim().toLowerCase().split(/\s+/);
  // Own keys only: `constructor` is no condition.
  const price = Object.hasOwn(ALERT_TYPES, head) ? ALERT_TYPES[head] : undefined;
  if (price) {
    needs(args.length === 1, head === 'step' ? 'step takes a step in points, like step 5.' : `${head} takes a price in percent, like ${head} 60.`);
    return { type: price, params: { threshold_percent: Number(checkValue(PERCENT, args[0]!)) } };
  }
  const move = Object.hasOwn(MOVE_TYPES, head) ? MOVE_TYPES[head] : undefined;
  if (move) {
    needs(args.length === 3 && IN_WORDS.has(args[1]!), `${head} takes points and a time window, like ${head} 10 in 1h.`);
    return { type: move, params: { threshold_percent: Number(checkValue(POINTS, args[0]!)), window: args[2]! } };
  }
  switch (head) {
    case TRADE: {
      needs(args.length === 1 || args.length === 2, 'trade takes a dollar amount and maybe a side, like trade 25000 or trade 25k buy.');
      const side = args[1] !== undefined && Object.hasOwn(SIDES, args[1]) ? SIDES[args[1]] : undefined;
      if (args[1] !== undefined && !side) throw new UsageError(`${args[1]} is not a side: use buy or sell.`);
      return { type: LARGE_TRADE_TYPE, params: { min_usd: dollars(args[0]!), ...(side ? { side } : {}) } };
    }
    case VOLUME: {
      const word = args.join('');
      const m = MULTIPLE.exec(word);
      needs(args.length >= 1, 'volume takes a multiple of the usual volume, like volume 3x.');
      needs(args.length <= 2 && m !== null, `${word} is not a multiple of the usual volume: write it like volume 3x.`);
      return { type: VOLUME_SPIKE_TYPE, params: { multiple: Number(m![1]) } };
    }
    case RESOLUTION:
      needs(args.length === 0, 'resolution takes nothing after it: /alert <market> resolution.');
      return { type: RESOLUTION_TYPE, params: {} };
    case CLOSING: {
      const word = args.join('');
      const m = HOURS.exec(word);
      needs(args.length >= 1, 'closing takes the hours before the close, like closing 24h.');
      needs(args.length <= 2 && m !== null, `${word} is not a time before the close: write hours, like closing 24h.`);
      return { type: CLOSING_SOON_TYPE, params: { hours_before: Number(m![1]) * (m![2] === 'd' ? 24 : 1) } };
    }
    default:
      throw new UsageError(`${head} is not a condition: use ${listWords(CONDITION_WORDS)}.`);
  }
}

/** The rule as the service takes it; the subscription schema checks it when it is stored. */
export const typeConfigOf = (c: Condition): SubscriptionTypeConfigInput => unparsed<SubscriptionTypeConfigInput>({ type: c.type, config: { params: c.params } });

/** A condition in a person's words ("rises 10 points within 1h"), as /alerts says it. */
const wordsOf = (c: Condition): string => ruleWords(c.type, c.params as Parameters<typeof ruleWords>[1]);

/** Examples of every form: what autocomplete offers before anything is typed. */
const EXAMPLES = ['up 60', 'down 40', 'cross 50', 'step 5', 'above 70', 'below 30', 'jumps 10 in 1h', 'drops 10 in 1h', 'moves 5 in 15m', 'trade 25k', 'trade 25k buy', 'volume 3x', 'resolution', 'closing 24h'];

/** Completions of what was typed so far: the forms it may be heading for, with the number typed kept. */
function completions(typed: string): string[] {
  const n = typed.split(' ')[1] || undefined;
  const out: string[] = [];
  for (const w of Object.keys(ALERT_TYPES)) out.push(`${w} ${n ?? (w === 'step' ? 5 : 60)}`);
  for (const w of Object.keys(MOVE_TYPES)) for (const window of MOVE_WINDOWS) out.push(`${w} ${n ?? 10} in ${window}`);
  for (const side of ['', ' buy', ' sell']) out.push(`${TRADE} ${n ?? '25k'}${side}`);
  out.push(`${VOLUME} ${n === undefined ? '3x' : n.replace(/[x×]?$/, 'x')}`, RESOLUTION);
  for (const h of CLOSING_SOON_HOURS) out.push(`${CLOSING} ${h}h`);
  return out.filter((c) => c.startsWith(typed));
}

/**
 * Discord's autocomplete for `condition:`: the typed condition itself when it reads as one, then
 * the forms it may be heading for, each as `jumps 10 in 1h · rises 10 points within 1h`.
 */
export function conditionChoices(raw: string): { name: string; value: string }[] {
  const typed = raw.trim().toLowerCase().replace(/\s+/g, ' ');
  const texts = typed === '' ? EXAMPLES : [typed, ...completions(typed).filter((c) => c !== typed)];
  const choices: { name: string; value: string }[] = [];
  for (const text of texts) {
    let condition: Condition;
    try {
      condition = parseCondition(text);
    } catch {
      continue; // half typed ("jumps 10 i"): its completions follow
    }
    // Only what would be accepted (not `closing 12`): the bounds are the subscription schema's.
    if (!SubscriptionTypeConfig.safeParse(typeConfigOf(condition)).success) continue;
    choices.push({ name: `${text} · ${wordsOf(condition)}`.slice(0, 100), value: text });
  }
  return choices;
}

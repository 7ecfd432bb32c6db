import { encodeButton } from '../../domain/button-actions.js';
import { CLOSING_SOON_HOURS, DEFAULT_TRIGGER_INTERVAL, isPriceRuleType } from '../../domain/enums.js';
import type { ServiceContext } from '../../services/context.js';
import {
  conditionWords,
  createMarketAlert,
  deliveryWords,
  marketForAlert,
  repeatWords,
  thresholdPresets,
  type AlertDraftMarket,
} from '../../services/subscriptions/index.js';
import { INTERVALS, ONCE, trigger } from './alert.js';
import { ALERT_TYPES, dollars, parseCondition, PERCENT, typeConfigOf, type Condition } from './alert-condition.js';
import { ruleWords } from './alert-lines.js';
import { checkValue } from './params.js';
import { errorReply } from './replies.js';
import { alertButtons, chatChannel } from './shared.js';
import type { BotButton, BotReply, ChatInfo } from './types.js';

// The guided alert: Alert (under a search result) → condition → threshold → confirmation → Save.
// The whole draft travels in each button's data (`flow:<step>:<market>:<type>:<value>:<repeat>:<owner>`,
// the value a percent, or dollars for a big trade, or hours for closing soon),
// so any process answers any tap and nothing is kept between taps. Each step edits the message
// it is on. `owner` is the platform user who started it: anyone else's tap changes nothing.

const STEP = { start: 'a', condition: 'c', threshold: 't', typeNumber: 'n', typed: 'b', confirm: 'k', save: 's', cancel: 'x' } as const;

const TRADE = 'trade';
const CLOSING = 'closing';
/** The amounts a big trade offers, in dollars. */
const TRADE_PRESETS: readonly number[] = [10_000, 25_000, 100_000];

/**
 * The flow's condition buttons, in the words the typed `/alert` takes, with the question of step 2
 * (after "alert when" for the price rules, whose subject is the outcome).
 */
const CONDITIONS: readonly { word: string; label: string; question: string }[] = [
  { word: 'up', label: 'Rises above', question: 'rises above what price?' },
  { word: 'down', label: 'Falls below', question: 'falls below what price?' },
  { word: 'cross', label: 'Either way', question: 'crosses what price, either way?' },
  { word: 'above', label: 'Is above', question: 'is above what price?' },
  { word: 'below', label: 'Is below', question: 'is below what price?' },
  { word: 'step', label: 'Every step', question: 'moves in steps of how many points?' },
  { word: TRADE, label: 'Big trade', question: 'one trade on this market is worth at least how much?' },
  { word: CLOSING, label: 'Closing soon', question: 'this market is how close to its end?' },
];
const isPriceWord = (word: string) => Object.hasOwn(ALERT_TYPES, word);

/** Step 2's question: the outcome is the subject of a price rule; the market of the others. */
const questionFor = (m: AlertDraftMarket, type: string) => {
  const question = CONDITIONS.find((c) => c.word === type)!.question;
  return isPriceWord(type) ? `${m.outcome} ${question}` : question;
};

/** The draft's rule, read by the typed `/alert`'s grammar (`closing 24h`, `trade 25000`, `up 45`). */
const conditionOf = (type: string, value: number | string): Condition => parseCondition(type === CLOSING ? `${type} ${value}h` : `${type} ${value}`);

/** What the rule waits for, in words, and whether its subject is the outcome (a price rule) or the market. */
function whenWords(type: string, value: number): { ofOutcome: boolean; words: string } {
  const c = conditionOf(type, value);
  return isPriceRuleType(c.type)
    ? { ofOutcome: true, words: conditionWords(c.type, value) }
    : { ofOutcome: false, words: ruleWords(c.type, c.params as Parameters<typeof ruleWords>[1]) };
}
/** The repeat kept by the flow: `once`, or the interval itself (`30m`). */
const DEFAULT_REPEAT = DEFAULT_TRIGGER_INTERVAL;

export const NOT_YOUR_FLOW = 'This alert is being set up by someone else: search and tap Alert to make your own.';
export const FLOW_CANCELLED = 'Cancelled: no alert was saved.';

interface Draft {
  marketId: string;
  type?: string;
  percent?: number;
  repeat?: string;
}

function button(label: string, step: string, draft: Draft, owner: string): BotButton | undefined {
  const words = [draft.marketId, draft.type, draft.percent, draft.repeat].filter((w) => w !== undefined).map(String);
  const action = encodeButton('flow', step, ...words, owner);
  return action ? { label, action } : undefined;
}

const rows = (...rows: (BotButton | undefined)[][]): BotButton[][] =>
  rows.map((r) => r.filter((b): b is BotButton => b !== undefined)).filter((r) => r.length > 0);

const priceLine = (m: AlertDraftMarket) => (m.pricePercent === null ? `${m.outcome}: no price yet.` : `${m.outcome} is at ${m.pricePercent}% now.`);

/**
 * The button under a search result that starts the flow; undefined when the market id would not
 * fit. It names no owner: whoever taps it (anyone in a group) starts a flow of their own.
 */
export function startAlertButton(label: string, marketId: string): BotButton | undefined {
  const action = encodeButton('flow', STEP.start, marketId);
  return action ? { label, action } : undefined;
}

function conditionStep(m: AlertDraftMarket, owner: string): BotReply {
  const b = (i: number) => button(CONDITIONS[i]!.label, STEP.threshold, { marketId: m.id, type: CONDITIONS[i]!.word }, owner);
  return {
    text: `New alert (1/3): when should I tell you?\n${m.question}\n${priceLine(m)}`,
    buttons: rows([b(0), b(1), b(2)], [b(3), b(4), b(5)], [b(6), b(7)], [button('Cancel', STEP.cancel, { marketId: m.id }, owner)]),
  };
}

/** The values step 2 offers for a condition, with their labels. */
function presetsFor(m: AlertDraftMarket, type: string): { value: number; label: string }[] {
  if (type === TRADE) return TRADE_PRESETS.map((usd) => ({ value: usd, label: `$${usd / 1000}k` }));
  if (type === CLOSING) return CLOSING_SOON_HOURS.map((h) => ({ value: h, label: `${h}h before` }));
  const rule = ALERT_TYPES[type]!;
  return thresholdPresets(rule, m.pricePercent).map((p) => ({ value: p, label: rule === 'Crossing Step' ? `${p} points` : `${p}%` }));
}

function thresholdStep(m: AlertDraftMarket, type: string, owner: string): BotReply {
  return {
    text: `New alert (2/3): alert when ${questionFor(m, type)}\n${m.question}\n${priceLine(m)}`,
    buttons: rows(
      presetsFor(m, type).map((p) => button(p.label, STEP.confirm, { marketId: m.id, type, percent: p.value, repeat: DEFAULT_REPEAT }, owner)),
      // Closing soon has four allowed values, all offered: nothing else to type.
      type === CLOSING ? [] : [button(type === TRADE ? 'Type an amount' : 'Type a number', STEP.typeNumber, { marketId: m.id, type }, owner)],
      [button('Back', STEP.condition, { marketId: m.id }, owner), button('Cancel', STEP.cancel, { marketId: m.id }, owner)],
    ),
  };
}

/**
 * "Type a number": the draft so far is the data of this message's Back button (step `b`), which a
 * typed answer is run with; Discord shows it as a modal, Telegram as this message, replied to.
 */
function numberStep(m: AlertDraftMarket, type: string, owner: string): BotReply {
  const question = questionFor(m, type);
  const back = button('Back', STEP.typed, { marketId: m.id, type }, owner);
  const reply = type === TRADE ? 'a dollar amount, like 25000 or 25k' : 'a number between 0 and 100, like 62.5';
  return {
    text: `New alert (2/3): alert when ${question}\n${m.question}\n${priceLine(m)}\nReply to this message with ${reply}.`,
    buttons: rows([back, button('Cancel', STEP.cancel, { marketId: m.id }, owner)]),
    ...(back
      ? {
          askNumber:
            type === TRADE
              ? { title: 'New alert: the trade size', label: 'One trade worth at least, in dollars', action: back.action, placeholder: '25k' }
              : { title: 'New alert: the price', label: question.slice(0, 45), action: back.action },
        }
      : {}),
  };
}

const triggerOf = (repeat: string) => trigger(repeat === ONCE ? ONCE : `every ${repeat}`);

function confirmStep(m: AlertDraftMarket, draft: Required<Draft>, chat: ChatInfo, owner: string): BotReply {
  const when = whenWords(draft.type, draft.percent);
  const other = draft.repeat === ONCE ? DEFAULT_REPEAT : ONCE;
  return {
    text: [
      'New alert (3/3): check and save',
      `Market: ${m.question}`,
      `Outcome: ${m.outcome}, ${m.pricePercent === null ? 'no price yet' : `${m.pricePercent}% now`}`,
      `Alert when: ${when.ofOutcome ? m.outcome : 'it'} ${when.words}`,
      `Delivered to: ${deliveryWords(chat.deliveryChannel?.type ?? chatChannel(chat).type)}`,
      `Repeats: ${repeatWords(triggerOf(draft.repeat))}`,
    ].join('\n'),
    buttons: rows(
      [button('Save', STEP.save, draft, owner), button('Cancel', STEP.cancel, { marketId: m.id }, owner)],
      [button(other === ONCE ? 'Only once' : `Repeat, every ${other} at most`, STEP.confirm, { ...draft, repeat: other }, owner)],
    ),
  };
}

async function save(ctx: ServiceContext, chat: ChatInfo, m: AlertDraftMarket, draft: Required<Draft>): Promise<BotReply> {
  const condition = conditionOf(draft.type, draft.percent);
  const channel = chat.deliveryChannel ? await chat.deliveryChannel.resolve() : chatChannel(chat);
  const created = await createMarketAlert({
    ctx,
    input: { marketId: m.id, subscriptionTypeConfig: typeConfigOf(condition), ...triggerOf(draft.repeat), channel },
  });
  const when = whenWords(draft.type, draft.percent);
  return {
    text: `Alert saved: ${when.ofOutcome ? `${m.outcome} ${when.words} on "${m.question}"` : `"${m.question}" ${when.words}`}. Delivered to ${deliveryWords(channel.type)}, ${repeatWords(triggerOf(draft.repeat))}.`,
    buttons: alertButtons(created.subscriptionId, 'Pause', 'Delete'),
  };
}

const isRepeat = (w: string | undefined) => w === ONCE || INTERVALS.some((i) => i === w);

/** Reads a tap's words back into a draft; a word this flow never wrote is a stale button. */
function readDraft(step: string, words: readonly string[]): Draft | undefined {
  const [marketId, type, percent, repeat] = words;
  if (!marketId) return undefined;
  const needs = step === STEP.start || step === STEP.condition || step === STEP.cancel ? 1 : step === STEP.threshold || step === STEP.typeNumber || step === STEP.typed ? 2 : 4;
  if (words.length !== needs) return undefined;
  if (needs >= 2 && !(type && CONDITIONS.some((c) => c.word === type))) return undefined;
  if (needs === 4 && !isRepeat(repeat)) return undefined;
  // The value is read as the typed /alert reads it (a percent, dollars, hours): a wrong one says so.
  if (type && percent !== undefined) conditionOf(type, percent);
  return {
    marketId,
    ...(type ? { type } : {}),
    ...(percent !== undefined ? { percent: Number(percent) } : {}),
    ...(repeat ? { repeat } : {}),
  };
}

const STALE: BotReply = { text: 'This button no longer works: search again and tap Alert.', failed: true, tapperOnly: true };

/**
 * One tap of the guided alert (`words` after `flow:`). The answer edits the message the tap came
 * from, except the first step, which is a new message under the search results. Never throws.
 */
export async function runFlowButton(ctx: ServiceContext, chat: ChatInfo, words: readonly string[]): Promise<BotReply> {
  const [step = '', ...rest] = words;
  const caller = chat.userId ?? '';
  const owner = step === STEP.start ? caller : (rest.pop() ?? '');
  if (owner !== caller) return { text: NOT_YOUR_FLOW, failed: true, tapperOnly: true };
  try {
    const draft = readDraft(step, rest);
    if (!draft) return STALE;
    if (step === STEP.cancel) return { text: FLOW_CANCELLED, edit: true };
    const market = await marketForAlert({ ctx, input: { marketId: draft.marketId } });
    switch (step) {
      case STEP.start:
        // The Alert under a search result opens the flow's own message: the results stay.
        return conditionStep(market, owner);
      case STEP.condition:
        return { ...conditionStep(market, owner), edit: true };
      case STEP.threshold:
      case STEP.typed:
        return { ...thresholdStep(market, draft.type!, owner), edit: true };
      case STEP.typeNumber:
        return { ...numberStep(market, draft.type!, owner), edit: true };
      case STEP.confirm:
        return { ...confirmStep(market, draft as Required<Draft>, chat, owner), edit: true };
      case STEP.save:
        return { ...(await save(ctx, chat, market, draft as Required<Draft>)), edit: true };
      default:
        return STALE;
    }
  } catch (err) {
    return { ...errorReply(err, undefined, chat.kind, ctx.logger), tapperOnly: true };
  }
}

/**
 * A number typed for a flow (`flowWords`: the words of its "Type a number" prompt's Back button,
 * `flow:b:<market>:<type>:<owner>`): the confirmation, or a sentence naming the wrong word.
 * Undefined when the words are not such a prompt's. Never throws.
 */
export async function runTypedNumber(ctx: ServiceContext, chat: ChatInfo, flowWords: readonly string[], typed: string): Promise<BotReply | undefined> {
  const [step, marketId, type, owner] = flowWords;
  if (step !== STEP.typed || !marketId || !type || !owner || flowWords.length !== 4) return undefined;
  if (owner !== (chat.userId ?? '')) return { text: NOT_YOUR_FLOW, failed: true, tapperOnly: true };
  let percent: number;
  try {
    percent = type === TRADE ? dollars(typed.trim().toLowerCase()) : Number(checkValue(PERCENT, typed));
  } catch (err) {
    return { text: err instanceof Error ? err.message : String(err), failed: true };
  }
  return runFlowButton(ctx, chat, [STEP.confirm, marketId, type, String(percent), DEFAULT_REPEAT, owner]);
}


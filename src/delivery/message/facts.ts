import { encodeButton } from '../../domain/button-actions.js';
import { cutText } from '../../text/cut.js';
import { NOTIFICATION_TYPE, PRICE_RULE_TYPES, isMoveRuleType, type PriceRuleType } from '../../domain/enums.js';
import { child, num, parseJsonArray, str } from '../senders/summary.js';
import { tradeWording } from './trade-facts.js';

// What a chat alert says, as plain text facts: the Telegram and Discord renderers only escape and
// lay them out, so both platforms tell the same story. Pure: the payloads and the rules' current
// state in, the facts out.

const [CROSSING, CROSSING_UP, CROSSING_DOWN, CROSSING_STEP, GREATER_THAN, LESS_THAN] = PRICE_RULE_TYPES;

/** The rule behind a payload as it is now: null when it was deleted. */
export interface RuleState {
  enabled: boolean;
  triggerType: string;
}

export interface FiredAlert {
  payload: Record<string, unknown>;
  /** Undefined when not looked up (a test send): no rule buttons then. */
  rule?: RuleState | null;
}

export interface MessageInput {
  /** One payload, or several rules of one account that fired on the same market and move. */
  fired: readonly FiredAlert[];
  links: { venueUrl: string; chartUrl?: string };
  /** The name of the outcome price rules watch ("Yes"), from the catalog. */
  outcomeName?: string;
  test?: boolean;
}

export interface RuleButton {
  label: string;
  /** The bots' button protocol string (`pause:<id>`), as the bots read it. */
  action: string;
  danger: boolean;
}

export interface RuleLine {
  /** "⬆ Crossed above 60 %". */
  headline: string;
  buttons: RuleButton[];
}

export type Tone = 'up' | 'down' | 'opened' | 'closed' | 'neutral';

export interface AlertMessage {
  tone: Tone;
  /** The market question, or the event title for an event-wide notice. */
  subject: string;
  /** "(Yes)" reads after the subject. */
  outcome?: string;
  /** "57 % → 62 %", or the price alone when no move caused the firing. */
  move?: string;
  rules: RuleLine[];
  /** Only when it says more than the subject. */
  eventTitle?: string;
  watchlistName?: string;
  /** Status notices: "Yes 99.5 % · No 0.5 %". */
  outcomes?: string;
  /** "2025-10-01 12:00:00 UTC". */
  time?: string;
  /** The detection time as ISO 8601 (Discord shows it in the reader's own time zone). */
  timestamp?: string;
  links: { venueUrl: string; chartUrl?: string };
  test: boolean;
}

// Venue text has no fixed length; these keep every message within Telegram's 4096 characters and
// Discord's embed limits whatever the venue sends.
const MAX_SUBJECT = 300;
const MAX_NAME = 120;
/** Discord has 5 button rows: one for links, one per rule. */
export const MAX_RULES_PER_MESSAGE = 4;


/** A fraction 0..1 as "62 %" or "62.5 %". */
export function percentOfFraction(fraction: number): string {
  return percent(fraction * 100);
}

function percent(value: number): string {
  return `${Number(value.toFixed(2))} %`;
}

/** "60 %", "60 % and 65 %", "60 %, 65 % and 70 %". */
function listLevels(levels: readonly number[]): string {
  const named = levels.map(percentOfFraction);
  return named.length <= 1 ? (named[0] ?? '') : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
}

/** "2025-10-01 12:00:00 UTC": the reader's day and time without a time-zone guess. */
export function humanUtc(iso: string | undefined): string | undefined {
  if (!iso) return undefined;
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? undefined : `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

function levelsOf(payload: Record<string, unknown>): number[] {
  const raw = child(child(payload, 'detectionDetails'), 'levels');
  return Array.isArray(raw) ? raw.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)) : [];
}

function previousOf(payload: Record<string, unknown>): number | undefined {
  return num(child(payload, 'detectionDetails'), 'previousValue');
}

interface PriceReading {
  /** The whole payload, for the extension types' own details. */
  payload: Record<string, unknown>;
  type: string | undefined;
  threshold: number | undefined;
  price: number | undefined;
  previous: number | undefined;
  levels: number[];
  /** The payload's `detectionDetails` (what the extension types add there). */
  details: unknown;
}

function readPrice(payload: Record<string, unknown>): PriceReading {
  const config = child(payload, 'subscriptionTypeConfig');
  return {
    payload,
    type: str(config, 'type'),
    threshold: num(child(child(config, 'config'), 'params'), 'threshold_percent'),
    price: num(payload, 'detectedValue'),
    previous: previousOf(payload),
    levels: levelsOf(payload),
    details: child(payload, 'detectionDetails'),
  };
}

/** Which way the price went: from the move when known, else from where it stands against the level. */
function direction(r: PriceReading): 'up' | 'down' | undefined {
  if (r.price !== undefined && r.previous !== undefined && r.price !== r.previous) return r.price > r.previous ? 'up' : 'down';
  const level = r.levels[0] ?? (r.threshold === undefined ? undefined : r.threshold / 100);
  if (r.price === undefined || level === undefined) return undefined;
  return r.price >= level ? 'up' : 'down';
}

const ARROW = { up: '⬆', down: '⬇' } as const;

/** The rule's wording and, for buttons in a message of several rules, its short name. */
function priceWording(r: PriceReading): { headline: string; short: string; tone: Tone } {
  const trade = tradeWording(r.payload);
  if (trade) return trade;
  const at = r.threshold === undefined ? '' : percent(r.threshold);
  const dir = direction(r);
  const arrow = dir ? `${ARROW[dir]} ` : '';
  const tone: Tone = dir ?? 'neutral';
  if (r.type !== undefined && isMoveRuleType(r.type)) return moveWording(r);
  const type = r.type as PriceRuleType | undefined;
  switch (type) {
    case CROSSING:
      return { headline: `${arrow}Crossed ${dir ? `${dir === 'up' ? 'above' : 'below'} ` : ''}${at}`, short: `crossing ${at}`, tone };
    case CROSSING_UP:
      return { headline: `${ARROW.up} Crossed above ${at}`, short: `up ${at}`, tone: 'up' };
    case CROSSING_DOWN:
      return { headline: `${ARROW.down} Crossed below ${at}`, short: `down ${at}`, tone: 'down' };
    case CROSSING_STEP: {
      const steps = `(steps of ${at})`;
      const verb = dir === 'down' ? 'Stepped down past' : 'Stepped up past';
      const headline = r.levels.length > 0 ? `${arrow}${verb} ${listLevels(r.levels)} ${steps}` : `${arrow}Moved a step ${steps}`;
      return { headline, short: `steps of ${at}`, tone };
    }
    case GREATER_THAN:
      return { headline: `${ARROW.up} Above ${at}`, short: `above ${at}`, tone: 'up' };
    case LESS_THAN:
      return { headline: `${ARROW.down} Below ${at}`, short: `below ${at}`, tone: 'down' };
    default:
      return { headline: 'Price alert', short: 'alert', tone };
  }
}

/**
 * A window move: "⬆ Up 12 points in 1h" (the move seen, the subject line shows from where to
 * where); the short name is the rule's own, "up 10 in 1h".
 */
function moveWording(r: PriceReading): { headline: string; short: string; tone: Tone } {
  const points = num(r.details, 'movePoints');
  const window = str(r.details, 'window') ?? '';
  const rule = r.threshold === undefined ? '' : ` ${Number(r.threshold.toFixed(2))}`;
  const dir = points === undefined || points === 0 ? direction(r) : points > 0 ? 'up' : 'down';
  const size = points === undefined ? rule : ` ${Number(Math.abs(points).toFixed(2))}`;
  const unit = size === ' 1' ? 'point' : 'points';
  const within = window ? ` in ${window}` : '';
  if (!dir) return { headline: `Moved${size} ${unit}${within}`, short: `move${rule}${within}`, tone: 'neutral' };
  const verb = dir === 'up' ? 'Up' : 'Down';
  return { headline: `${ARROW[dir]} ${verb}${size} ${unit}${within}`, short: `${dir}${rule}${within}`, tone: dir };
}

/** The snooze spans a message offers, beside Pause and Delete (a row of five fits Discord). */
const SNOOZE_BUTTON_SPANS = [
  { span: '1h', label: '1 h' },
  { span: '8h', label: '8 h' },
  { span: '24h', label: '24 h' },
] as const;

/**
 * Pause, Delete and Snooze only while they mean something: the rule still exists, is on, and is
 * Recurring. A One Time rule is turned off by its own firing, so its message would offer to pause
 * (or snooze) nothing.
 */
function ruleButtons(alert: FiredAlert, short: string | undefined, test: boolean): RuleButton[] {
  const subscriptionId = str(alert.payload, 'subscriptionId');
  const rule = alert.rule;
  if (test || !subscriptionId || !rule || !rule.enabled || rule.triggerType !== 'Recurring') return [];
  const pause = encodeButton('pause', subscriptionId);
  const remove = encodeButton('delete', subscriptionId);
  const snoozes = SNOOZE_BUTTON_SPANS.map(({ span, label }) => ({ label, action: encodeButton('snooze', subscriptionId, span) }));
  if (!pause || !remove || snoozes.some((s) => !s.action)) return [];
  const named = short ? ` ${short}` : ' alert';
  return [
    { label: `Pause${named}`, action: pause, danger: false },
    { label: `Delete${named}`, action: remove, danger: true },
    ...snoozes.map(({ label, action }) => ({ label: short ? `Snooze ${short} ${label}` : `Snooze ${label}`, action: action!, danger: false })),
  ];
}

function statusOutcomes(payload: Record<string, unknown>): string | undefined {
  const names = parseJsonArray(str(payload, 'outcomes'));
  const prices = parseJsonArray(str(payload, 'outcomePrices'));
  if (!names || !prices || names.length !== prices.length) return undefined;
  return names
    .map((name, i) => {
      const price = Number(prices[i]);
      return cutText(Number.isFinite(price) ? `${String(name)} ${percentOfFraction(price)}` : String(name), MAX_NAME);
    })
    .join(' · ');
}

function shared(payload: Record<string, unknown>, subject: string, links: MessageInput['links'], test: boolean) {
  const eventTitle = str(payload, 'eventTitle');
  const watchlistName = str(payload, 'watchlistName');
  const detectedAt = str(payload, 'detectedAt');
  return {
    subject: cutText(subject, MAX_SUBJECT),
    ...(eventTitle && eventTitle !== subject ? { eventTitle: cutText(eventTitle, MAX_SUBJECT) } : {}),
    ...(watchlistName ? { watchlistName: cutText(watchlistName, MAX_NAME) } : {}),
    ...(humanUtc(detectedAt) ? { time: humanUtc(detectedAt), timestamp: new Date(detectedAt!).toISOString() } : {}),
    links,
    test,
  };
}

const isStatus = (payload: Record<string, unknown>) => str(payload, 'type') === NOTIFICATION_TYPE.eventStatus;

/** What opened or closed (or is resolving, or closing soon), and the headline that says so. */
function statusWording(payload: Record<string, unknown>): { subject: string; headline: string; tone: Tone } {
  const scope = str(payload, 'eventStatusScope') === 'Market' ? 'Market' : 'Event';
  const trigger = str(payload, 'triggerType');
  const opened = trigger === 'Open';
  const subject = (scope === 'Market' ? str(payload, 'marketQuestion') : undefined) ?? str(payload, 'eventTitle') ?? 'Untitled event';
  const lifecycle = lifecycleHeadline(payload, trigger);
  if (lifecycle) return { subject, headline: lifecycle, tone: 'neutral' };
  return { subject, headline: opened ? `🆕 New ${scope.toLowerCase()}` : `🔒 ${scope} closed`, tone: opened ? 'opened' : 'closed' };
}

const RESOLUTION_WORDS: Record<string, string> = { proposed: 'Result proposed', disputed: 'Result disputed', resolved: 'Resolved', '': 'Proposal withdrawn' };

/** "1 h", "24 h", "45 min": how long until the end date, as a person reads it. */
function timeLeft(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  return minutes < 60 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}

/**
 * Our Resolution and Closing Soon notices: "⚖ Result proposed: Yes", "⚖ Resolved: No",
 * "⏳ Closes in 24 h: 2026-11-25 18:00 UTC". Undefined for the spec's Open and Closed notices.
 */
function lifecycleHeadline(payload: Record<string, unknown>, trigger: string | undefined): string | undefined {
  const details = child(payload, 'detectionDetails');
  if (trigger === 'Resolution') {
    const status = str(details, 'resolutionStatus') ?? '';
    const outcome = str(details, 'outcome');
    const words = RESOLUTION_WORDS[status] ?? `Resolution ${cutText(status, MAX_NAME)}`;
    return `⚖ ${words}${outcome && status !== '' ? `: ${cutText(outcome, MAX_NAME)}` : ''}`;
  }
  if (trigger === 'Closing Soon') {
    const endDate = str(details, 'endDate');
    const end = endDate ? new Date(endDate).getTime() : Number.NaN;
    const detected = num(payload, 'detectedAtMs');
    if (Number.isNaN(end)) return '⏳ Closes soon';
    const left = detected === undefined ? '' : ` in ${timeLeft(end - detected)}`;
    return `⏳ Closes${left}: ${humanUtc(endDate)!.slice(0, 16)} UTC`;
  }
  return undefined;
}

function statusMessage(alert: FiredAlert, links: MessageInput['links'], test: boolean): AlertMessage {
  const { payload } = alert;
  const { subject, headline, tone } = statusWording(payload);
  const outcomes = statusOutcomes(payload);
  return {
    ...shared(payload, subject, links, test),
    tone,
    rules: [{ headline, buttons: ruleButtons(alert, undefined, test) }],
    ...(outcomes ? { outcomes } : {}),
  };
}

const priceSubject = (payload: Record<string, unknown>) => str(payload, 'marketQuestion') ?? str(payload, 'eventTitle') ?? 'Untitled market';

/** "57 % → 62 %", or the price alone when no move caused the firing. */
function priceMove(r: PriceReading): string | undefined {
  const now = r.price === undefined ? undefined : percentOfFraction(r.price);
  const before = r.previous === undefined ? undefined : percentOfFraction(r.previous);
  return now && before && before !== now ? `${before} → ${now}` : now;
}

/** The facts of one chat message about one notification, or several that fired on one move. */
export function alertMessage({ fired, links, outcomeName, test = false }: MessageInput): AlertMessage {
  const first = fired[0];
  if (!first) throw new Error('alertMessage needs at least one notification');
  if (isStatus(first.payload)) return statusMessage(first, links, test);
  const reading = readPrice(first.payload);
  const several = fired.length > 1;
  const rules = fired.map((alert) => {
    const wording = priceWording(readPrice(alert.payload));
    return { wording, line: { headline: wording.headline, buttons: ruleButtons(alert, several ? wording.short : undefined, test) } };
  });
  const move = priceMove(reading);
  return {
    ...shared(first.payload, priceSubject(first.payload), links, test),
    tone: rules[0]!.wording.tone,
    ...(outcomeName ? { outcome: cutText(outcomeName, MAX_NAME) } : {}),
    ...(move ? { move } : {}),
    rules: rules.map((r) => r.line),
  };
}

/** "Will X happen? (Yes) 57 % → 62 %": what moved and where to. */
export function subjectLine(m: Pick<AlertMessage, 'subject' | 'outcome' | 'move'>): string {
  return [m.subject, m.outcome ? `(${m.outcome})` : undefined, m.move].filter(Boolean).join(' ');
}

/**
 * One notification in one line, worded as its chat alert: "Will X happen? 57 % → 62 % · ⬆ Crossed
 * above 60 %", "Will X happen? · 🔒 Market closed". For lists of past firings (chat's `/alerts <id>`).
 */
export function alertLine(payload: Record<string, unknown>): string {
  if (isStatus(payload)) {
    const { subject, headline } = statusWording(payload);
    return `${cutText(subject, MAX_SUBJECT)} · ${headline}`;
  }
  const reading = readPrice(payload);
  const move = priceMove(reading);
  return `${subjectLine({ subject: cutText(priceSubject(payload), MAX_SUBJECT), ...(move ? { move } : {}) })} · ${priceWording(reading).headline}`;
}

/** What one notification says in a line of its own, without the subject: "⬆ Crossed above 60 %", "🔒 Market closed". */
export function headlineOf(payload: Record<string, unknown>): { subject: string; headline: string; price?: number } {
  if (isStatus(payload)) {
    const { subject, headline } = statusWording(payload);
    return { subject: cutText(subject, MAX_SUBJECT), headline };
  }
  const reading = readPrice(payload);
  return {
    subject: cutText(priceSubject(payload), MAX_SUBJECT),
    headline: priceWording(reading).headline,
    ...(reading.price !== undefined ? { price: reading.price } : {}),
  };
}

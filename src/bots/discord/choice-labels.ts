import { DEFAULT_TRIGGER_INTERVAL } from '../../domain/enums.js';
import { percentOfFraction } from '../../delivery/message/facts.js';
import type { SubscriptionView } from '../../services/subscriptions/index.js';
import { cutText } from '../../text/cut.js';
import { ruleLabel } from '../commands/alert-lines.js';

// Autocomplete choices are read in a short list and picked by name alone: each must say what it
// is in Discord's 100 characters, and no two may read the same (the value behind stays the id).

const MAX_NAME = 100; // Discord's limit for a choice's name
const SEP = ' · ';
/** The share of a label an event title may take when it is needed to tell two markets apart. */
const EVENT_TITLE_MAX = 40;

export interface LabelledMarket {
  id: string;
  question: string;
  eventTitle: string;
  outcomes: readonly string[];
  outcomePrices: readonly number[];
  endDate: string | null;
}

/** "ends Jun 30" (the year too when it is not this one; "ended" once past), in UTC like the alerts. */
function endWords(iso: string | null, now: Date): string | undefined {
  if (!iso) return undefined;
  const end = new Date(iso);
  if (Number.isNaN(end.getTime())) return undefined;
  const sameYear = end.getUTCFullYear() === now.getUTCFullYear();
  const day = end.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC', ...(sameYear ? {} : { year: 'numeric' }) });
  return `${end < now ? 'ended' : 'ends'} ${day}`;
}

/** "Yes 62 %": the first outcome, the one price rules watch, at its catalog price. */
function priceWords(m: LabelledMarket): string | undefined {
  const outcome = m.outcomes[0];
  const price = m.outcomePrices[0];
  if (outcome === undefined) return undefined;
  return price === undefined || !Number.isFinite(price) ? outcome : `${outcome} ${percentOfFraction(price)}`;
}

/**
 * The parts joined, then the tail, within MAX_NAME: the part at `flex` (the question) gives way
 * first; the others are short by construction (`max` caps them), the tail is kept whole.
 */
function fit(parts: { text: string; max?: number }[], tail: string, flex = 0): string {
  const capped = parts.map((p) => (p.max ? cutText(p.text, p.max) : p.text));
  const over = capped.join(SEP).length + tail.length - MAX_NAME;
  if (over > 0) capped[flex] = cutText(capped[flex]!, Math.max(1, capped[flex]!.length - over));
  return cutText(capped.join(SEP) + tail, MAX_NAME);
}

/**
 * "Will X happen? · Yes 62 % · ends Jun 30", within 100 characters. Markets that would read the
 * same get their event's title after the question; any still alike, their id at the end.
 */
export function marketChoices(markets: readonly LabelledMarket[], now = new Date()): { name: string; value: string }[] {
  const tailOf = (m: LabelledMarket) => [priceWords(m), endWords(m.endDate, now)].filter(Boolean).map((t) => `${SEP}${t}`).join('');
  const plain = markets.map((m) => fit([{ text: m.question }], tailOf(m)));
  const withEvent = markets.map((m, i) =>
    repeated(plain, plain[i]!) ? fit([{ text: m.question }, { text: m.eventTitle, max: EVENT_TITLE_MAX }], tailOf(m)) : plain[i]!,
  );
  return markets.map((m, i) => {
    const name = withEvent[i]!;
    return { name: repeated(withEvent, name) ? fit([{ text: name }], `${SEP}#${cutText(m.id, 30)}`) : name, value: m.id };
  });
}

const repeated = (names: readonly string[], name: string) => names.indexOf(name) !== names.lastIndexOf(name);

/**
 * An alert as a person reads it, without its id: "Crossing Up 60% · Will X happen? · every 30m",
 * "paused" when it is. Alerts that would read the same are numbered in the list's order.
 */
export function alertChoices(subscriptions: readonly SubscriptionView[]): { name: string; value: string }[] {
  const names = subscriptions.map((s) => {
    const rule = ruleLabel(s);
    const what = s.marketQuestion ?? s.eventTitle ?? s.watchlistName;
    const when = s.triggerType === 'One Time' ? 'once' : `every ${s.triggerInterval ?? DEFAULT_TRIGGER_INTERVAL}`;
    return { rule, what, tail: `${SEP}${when}${s.status.enabled ? '' : `${SEP}paused`}` };
  });
  const plain = names.map((n) => fit([{ text: n.rule }, { text: n.what }], n.tail, 1));
  const seen = new Map<string, number>();
  return subscriptions.map((s, i) => {
    const name = plain[i]!;
    if (!repeated(plain, name)) return { name, value: s.subscriptionId };
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return { name: fit([{ text: name }], ` (${n})`), value: s.subscriptionId };
  });
}

import { CLOSING_SOON_HOURS, MOVE_WINDOWS } from '../../domain/enums.js';
import { listWords } from './shared.js';
import type { ErrorSubject, ServiceError, ValidationIssue } from '../../services/errors.js';

// Service errors in the words of a chat: no field paths, no setting names. REST keeps the messages.

const NOT_FOUND: Record<ErrorSubject, string> = {
  subscription: "I can't find that alert (it may have been deleted). Send /alerts to see yours.",
  watchlist: "I can't find that watchlist (it may have been deleted). Send /watchlists to see yours.",
  'watchlist event': 'That event is not in this watchlist.',
  event: "I can't find that event. Find one with /search.",
  market: "I can't find that market. Find one with /search: each market's id is in its answer.",
  notification: "I can't find that notification.",
  token: "I can't find that token (it may have been revoked).",
  account: "I can't find your account.",
  channel: "I can't find that channel.",
  'query term': "I can't find that search word.",
};

const LIMIT: Partial<Record<ErrorSubject, (n: number) => string>> = {
  subscription: (n) => `You already have ${n} alerts, the most an account may hold. Delete one with /delete first.`,
  watchlist: (n) => `You already have ${n} watchlists, the most an account may hold. Delete one with /watchlist delete first.`,
  'watchlist event': (n) => `That watchlist already holds ${n} events, the most it may hold. Remove one with /unwatch first.`,
  channel: (n) => `An alert can go to at most ${n} places.`,
  'query term': (n) => `A watchlist can search for at most ${n} words or tags.`,
  token: (n) => `You already have ${n} active API tokens, the most an account may hold. Revoke one first: /tokens lists them, /revoke <number> revokes one.`,
};

export function notFoundWords(err: ServiceError): string {
  return err.detail.subject ? NOT_FOUND[err.detail.subject] : "I can't find that.";
}

export function conflictWords(err: ServiceError): string {
  if (err.detail.subject === 'watchlist event') {
    return "That alert's event is no longer on your watchlist: /watch it again, then resume the alert.";
  }
  return 'That clashes with how things are now; check with /watchlists or /alerts and try again.';
}

export function limitWords(err: ServiceError): string {
  const { subject, limit } = err.detail;
  const words = subject ? LIMIT[subject] : undefined;
  return words && limit !== undefined ? words(limit) : 'That goes over a limit of this server.';
}

/**
 * The first problem we can say in chat words; otherwise the message without its field path, unless
 * it still names a field or setting (`threshold_percent`, `watchlistId`, `MAX_…`): then only the
 * word that was refused.
 */
export function validationWords(err: ServiceError): string {
  for (const issue of err.detail.issues ?? []) {
    const words = issueWords(issue);
    if (words) return words;
  }
  const first = err.detail.issues?.[0];
  const message = withoutFieldPath(first?.message ?? err.message);
  if (!API_WORD.test(message)) return message;
  return first?.input !== undefined ? `I can't use "${String(first.input)}" there.` : "I can't use what you wrote there.";
}

/** An identifier a person would not write: snake_case, camelCase or a setting name. */
const API_WORD = /\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z]\w*\b|\bMAX_[A-Z_]+\b|Subscription/;

/** The channel words /quiet takes, as a person types them (see quiet.ts). */
export const QUIET_CHANNEL_WORDS = ['telegram', 'discord', 'webhook', 'inbox'] as const;

const ID_FIELDS = new Set(['marketId', 'eventId', 'watchlistId', 'watchListId', 'subscriptionId', 'event']);

function issueWords(issue: ValidationIssue): string | undefined {
  const field = [...issue.path].reverse().find((k): k is string => typeof k === 'string');
  const given = issue.input === undefined ? 'That' : typeof issue.input === 'number' ? String(issue.input) : `"${String(issue.input)}"`;
  if (field === 'threshold_percent' || field === 'thresholdPercent') return percentWords(issue, given);
  const rule = ruleParamWords(field, issue, given);
  if (rule) return rule;
  if (field === 'name' && issue.code === 'too_small') return 'A watchlist name cannot be empty.';
  if (field === 'name' && issue.code === 'too_big') return `A watchlist name is at most ${issue.bound} characters.`;
  if (field === 'watchlist' && issue.code === 'too_big') return `A watchlist id or name is at most ${issue.bound} characters.`;
  if (field === 'start' || field === 'end') return `${given} is not a time: write it as HH:MM on a 24-hour clock, like 22:00 or 07:30.`;
  if (field === 'quietHours' && issue.code === 'custom') return 'Quiet hours must start and end at different times.';
  if (field === 'until' && issue.code === 'custom') return 'That time has passed: give a time to come.';
  if (field === 'channels') return `${given} is not a channel: use ${listWords(QUIET_CHANNEL_WORDS)}.`;
  if (field === 'timezone') return `${given} is not a time zone I know: use a name like Europe/Paris, America/New_York or UTC.`;
  if (field !== undefined && ID_FIELDS.has(field) && issue.code === 'too_big') return `That id is too long: at most ${issue.bound} characters.`;
  return undefined;
}

function percentWords(issue: ValidationIssue, given: string): string | undefined {
  const { code, bound, inclusive } = issue;
  if (code === 'step_too_big') return `${given} is not a valid step: a step is at most ${bound} percent.`;
  if (code === 'step_too_small') return `${given} is not a valid step: a step is at least ${bound} percent.`;
  if (code === 'too_big') return `${given} is not a valid percent: it must be ${inclusive ? 'at most' : 'below'} ${bound}.`;
  if (code === 'too_small') return `${given} is not a valid percent: it must be ${inclusive ? 'at least' : 'above'} ${bound}.`;
  if (code === 'invalid_type') return `${given} is not a number: write the percent like 60 or 60.5.`;
  return undefined;
}

/** The extension rules' params (docs/triggers.md), as `/alert <market> trade 25k` and its kin write them. */
function ruleParamWords(field: string | undefined, issue: ValidationIssue, given: string): string | undefined {
  const { code, bound } = issue;
  switch (field) {
    case 'window':
      return `${given.replace(/"/g, '')} is not a time window: use ${listWords(MOVE_WINDOWS)}, like jumps 10 in 1h.`;
    case 'min_usd':
      if (code === 'too_small') return `${given} is not a trade size: give a dollar amount above ${bound ?? 0}, like trade 25000 or trade 25k.`;
      if (code === 'too_big') return `${given} is not a trade size: give at most ${(bound ?? 0).toLocaleString('en-US')} dollars.`;
      return `${given} is not a dollar amount: write it like 25000 or 25k.`;
    case 'side':
      return `${given.replace(/"/g, '')} is not a side: use buy or sell.`;
    case 'multiple':
      if (code === 'too_small') return `${given}x is not a volume spike: use at least ${bound}x the usual volume, like volume 3x.`;
      if (code === 'too_big') return `${given}x is not a volume spike: use at most ${bound}x the usual volume.`;
      return `${given} is not a multiple: write it like volume 3x.`;
    case 'hours_before':
      return `${typeof issue.input === 'number' ? `${issue.input}h` : given} is not a time before the close: use ${listWords(CLOSING_SOON_HOURS.map((h) => `${h}h`))}.`;
    default:
      return undefined;
  }
}

/** `events.123.markets: market 9 is not …` → `market 9 is not …`. */
const withoutFieldPath = (message: string): string => message.replace(/^[\w.]+: /, '');

import { cutText } from '../../text/cut.js';
import type { BatchKind } from '../batches.js';
import { summarizeHealthNotice, str } from '../senders/summary.js';
import type { BatchItem } from '../senders/types.js';
import { headlineOf, percentOfFraction } from './facts.js';

// What a batched send (quiet hours, a digest, a burst) says in chat, as plain text facts: a title
// with the number of alerts, then the alerts grouped by event, one line per rule and market with
// its first and last price and how many times it fired. Telegram and Discord only escape and lay
// it out. Pure.

export interface SummaryGroup {
  /** The event's title ("Other" for notices that are about no event). */
  heading: string;
  lines: string[];
}

export interface SummaryMessage {
  title: string;
  groups: SummaryGroup[];
}

const MAX_HEADING = 200;

function title(kind: BatchKind, count: number): string {
  const alerts = `${count} alert${count === 1 ? '' : 's'}`;
  switch (kind) {
    case 'quiet':
      return `🌙 While your quiet hours were on: ${alerts}`;
    case 'hourly':
      return `🗞 Hourly digest: ${alerts}`;
    case 'daily':
      return `🗞 Daily digest: ${alerts}`;
    case 'burst':
      return `⚡ ${count} more alert${count === 1 ? '' : 's'} in a burst`;
  }
}

interface Line {
  subject: string;
  headline: string;
  first?: number;
  last?: number;
  count: number;
}

/** "Will A win? · ⬆ Crossed above 60 % · 57 % → 62 % · 3 times". */
function lineText(line: Line): string {
  const prices =
    line.first === undefined || line.last === undefined
      ? undefined
      : line.first !== line.last
        ? `${percentOfFraction(line.first)} → ${percentOfFraction(line.last)}`
        : percentOfFraction(line.last);
  return [line.subject, line.headline, prices, line.count > 1 ? `${line.count} times` : undefined].filter(Boolean).join(' · ');
}

/**
 * The facts of one summary. Items in the order they fired; one notification sent twice to the
 * same chat (two channels of one rule) counts once.
 */
export function batchSummary(kind: BatchKind, items: readonly BatchItem[]): SummaryMessage {
  const seen = new Set<string>();
  const groups = new Map<string, { heading: string; lines: Map<string, Line> }>();
  for (const { notificationId, payload } of items) {
    if (seen.has(notificationId)) continue;
    seen.add(notificationId);
    const notice = summarizeHealthNotice(payload);
    const eventKey = notice ? '' : (str(payload, 'eventId') ?? str(payload, 'eventTitle') ?? '');
    const heading = notice ? 'Notices' : cutText(str(payload, 'eventTitle') ?? 'Other', MAX_HEADING);
    const group = groups.get(eventKey) ?? { heading, lines: new Map<string, Line>() };
    groups.set(eventKey, group);
    if (notice) {
      group.lines.set(notificationId, { subject: notice.title, headline: cutText(notice.message, 300), count: 1 });
      continue;
    }
    const { subject, headline, price } = headlineOf(payload);
    // One line per rule and market: its firings' first and last price and how many.
    const lineKey = JSON.stringify([str(payload, 'subscriptionId'), str(payload, 'marketId'), str(payload, 'type'), str(payload, 'triggerType'), subject]);
    const line = group.lines.get(lineKey);
    if (line) {
      line.count += 1;
      line.headline = headline;
      if (price !== undefined) {
        line.first ??= price;
        line.last = price;
      }
    } else {
      group.lines.set(lineKey, { subject, headline, count: 1, ...(price !== undefined ? { first: price, last: price } : {}) });
    }
  }
  return {
    title: title(kind, seen.size),
    groups: [...groups.values()].map((g) => ({ heading: g.heading, lines: [...g.lines.values()].map(lineText) })),
  };
}

/**
 * The summary's body as lines for a platform: headings and bullets through the platform's own
 * escaping, stopped at whole lines within `max` characters with a last line saying how many
 * lines were left out.
 */
export function summaryBody(summary: SummaryMessage, max: number, format: { heading: (text: string) => string; line: (text: string) => string }): string {
  const out: string[] = [];
  let length = 0;
  const all = summary.groups.flatMap((g) => [{ heading: true, text: format.heading(g.heading) }, ...g.lines.map((l) => ({ heading: false, text: format.line(l) }))]);
  const total = summary.groups.reduce((n, g) => n + g.lines.length, 0);
  let shown = 0;
  for (const [i, entry] of all.entries()) {
    const reserve = i === all.length - 1 ? 0 : 40; // room for the "and N more" line
    if (length + entry.text.length + 1 + reserve > max) {
      out.push(format.line(`… and ${total - shown} more`));
      break;
    }
    out.push(entry.text);
    length += entry.text.length + 1;
    if (!entry.heading) shown += 1;
  }
  return out.join('\n');
}

import { cutText } from '../text/cut.js';

// Lists in chat are shown a page at a time: whole lines only, each page under the platform's
// message limit and a fixed number of entries (the buttons under a page are counted too).

/** The longest message each platform accepts (Telegram's text, Discord's content). */
export const MESSAGE_LIMIT = { telegram: 4096, discord: 2000 } as const;

/** Room kept on every page for the header line and the "Page 2 of 5" footer. */
const FOOTER_ROOM = 40;

export interface PageOptions {
  /** The first line of every page (a title such as "Your alerts:"). */
  header: string;
  /** The platform's message limit. */
  limit: number;
  /** At most this many entries on one page. */
  perPage: number;
  /** Number the lines on each page from 1 ("1. …"), as the buttons under it name them. */
  numbered?: boolean;
}

export interface Page {
  /** 1-based, clamped to the pages there are. */
  page: number;
  pages: number;
  /** Index of the page's first entry in the whole list, and one past its last. */
  start: number;
  end: number;
  /** The page as it is sent: header, its lines, and the page footer when there is more than one page. */
  text: string;
}

/** Where each page starts: greedy from the first entry, so a page number always means the same entries. */
function pageStarts(lines: readonly string[], room: number, perPage: number): number[] {
  const starts = [0];
  let used = 0;
  let count = 0;
  lines.forEach((line, i) => {
    const size = line.length + 1;
    if (count > 0 && (count === perPage || used + size > room)) {
      starts.push(i);
      used = 0;
      count = 0;
    }
    used += size;
    count += 1;
  });
  return starts;
}

/** Page `wanted` (1-based) of `lines`; an out-of-range page answers the nearest one. */
export function pageOf(lines: readonly string[], wanted: number, { header, limit, perPage, numbered = false }: PageOptions): Page {
  // Sized with the widest number a page can show, so the numbers never push a page over.
  const prefix = numbered ? `${perPage}. `.length : 0;
  const room = limit - header.length - FOOTER_ROOM;
  // A line alone longer than a page would ever be is cut with an ellipsis, so it still fits whole.
  const shown = lines.map((line) => cutText(line, room - 1 - prefix));
  const starts = pageStarts(
    shown.map((line) => line.padStart(line.length + prefix)),
    room,
    perPage,
  );
  const pages = starts.length;
  const page = Math.min(Math.max(1, Math.trunc(wanted) || 1), pages);
  const start = starts[page - 1]!;
  const end = page < pages ? starts[page]! : shown.length;
  const footer = pages > 1 ? [`Page ${page} of ${pages}`] : [];
  const body = shown.slice(start, end).map((line, i) => (numbered ? `${i + 1}. ${line}` : line));
  return { page, pages, start, end, text: [header, ...body, ...footer].join('\n') };
}

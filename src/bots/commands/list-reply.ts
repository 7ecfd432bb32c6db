import { encodeButton } from '../../domain/button-actions.js';
import { MESSAGE_LIMIT, pageOf } from '../../domain/pages.js';
import type { BotButton, BotReply, ChatInfo } from './types.js';

/** Buttons on one row under a list: Discord allows 5 rows of 5; 4 rows of entries and the Previous/Next row fit. */
const BUTTONS_PER_ROW = 4;
const ENTRY_ROWS = 4;

export interface ListSpec<T> {
  chat: ChatInfo;
  header: string;
  entries: readonly T[];
  /** One entry as a line; with buttons, the page numbers it (1, 2, … as its buttons say). */
  line: (entry: T) => string;
  /** The buttons for one entry, if any; at most two each keeps a page of 8 within Discord's rows. */
  buttons?: (entry: T, n: number) => BotButton[];
  perPage: number;
  page: number;
  /** The command Previous/Next run again, with these words. */
  command: string;
  words?: readonly string[];
  /** Shown above the header (e.g. "Paused ✓" after a tap). */
  notice?: string;
}

const chunk = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/**
 * One page of a list under the chat platform's message limit, whole lines only, with the entries'
 * buttons and Previous/Next buttons that carry the page in their data.
 */
export function listPage<T>(spec: ListSpec<T>): { reply: BotReply; shown: readonly T[] } {
  const { chat, entries, perPage, command, words = [] } = spec;
  const header = spec.notice ? `${spec.notice}\n${spec.header}` : spec.header;
  // Numbers restart on every page: they name the buttons under this message, not the entry.
  const page = pageOf(entries.map(spec.line), spec.page, { header, limit: MESSAGE_LIMIT[chat.kind], perPage, numbered: spec.buttons !== undefined });
  const shown = entries.slice(page.start, page.end);
  const entryButtons = spec.buttons ? shown.flatMap((e, i) => spec.buttons!(e, i + 1)) : [];
  const nav = [
    page.page > 1 ? { label: '◀ Previous', action: encodeButton('page', command, page.page - 1, ...words) } : undefined,
    page.page < page.pages ? { label: 'Next ▶', action: encodeButton('page', command, page.page + 1, ...words) } : undefined,
  ].filter((b): b is BotButton => b?.action !== undefined);
  const rows = [...chunk(entryButtons, BUTTONS_PER_ROW).slice(0, ENTRY_ROWS), ...(nav.length > 0 ? [nav] : [])];
  return { reply: { text: page.text, ...(rows.length > 0 ? { buttons: rows } : {}) }, shown };
}

export const listReply = <T>(spec: ListSpec<T>): BotReply => listPage(spec).reply;

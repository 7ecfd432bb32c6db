/**
 * What the Telegram Bot API refuses, for the fake Bot API: a payload the real API would refuse
 * fails a test here. Limits are the ones stated in @grammyjs/types (methods.d.ts, markup.d.ts),
 * which copy the Bot API reference; descriptions are the ones Telegram answers (its HTML parser is
 * tdlib's `parse_html`), `Bad Request: …` with HTTP 400.
 */

export interface TelegramRefusal {
  error_code: number;
  description: string;
  /** 429: how long to wait (flood control). */
  parameters?: { retry_after: number };
}

const badRequest = (what: string): TelegramRefusal => ({ error_code: 400, description: `Bad Request: ${what}` });

/** sendMessage: "Text of the message to be sent, 1-4096 characters after entities parsing" (methods.d.ts). */
export const MAX_MESSAGE_TEXT = 4096;
/** answerCallbackQuery: "Text of the notification … 0-200 characters" (methods.d.ts). */
export const MAX_CALLBACK_ANSWER = 200;
/** InlineKeyboardButton.callback_data: "1-64 bytes" (markup.d.ts). */
export const MAX_CALLBACK_DATA_BYTES = 64;

/**
 * The parameters each checked method takes (@grammyjs/types methods.d.ts). Telegram itself ignores
 * unknown ones; the fake refuses them because a misspelt `parse_mode` or `reply_markup` is silently
 * lost there, which is exactly the bug a test should see.
 */
const KNOWN_PARAMETERS: Record<string, ReadonlySet<string>> = {
  sendMessage: new Set([
    'business_connection_id', 'chat_id', 'message_thread_id', 'direct_messages_topic_id', 'ephemeral_message_parameters',
    'text', 'parse_mode', 'entities', 'link_preview_options', 'disable_notification', 'protect_content',
    'allow_paid_broadcast', 'message_effect_id', 'suggested_post_parameters', 'reply_parameters', 'reply_markup',
    'disable_web_page_preview', 'reply_to_message_id', 'allow_sending_without_reply',
  ]),
  editMessageText: new Set([
    'business_connection_id', 'chat_id', 'message_id', 'inline_message_id', 'text', 'parse_mode', 'entities',
    'link_preview_options', 'reply_markup', 'disable_web_page_preview',
  ]),
  editMessageReplyMarkup: new Set(['business_connection_id', 'chat_id', 'message_id', 'inline_message_id', 'reply_markup']),
  answerCallbackQuery: new Set(['callback_query_id', 'text', 'show_alert', 'url', 'cache_time']),
};

/** The refusal Telegram would answer to `method` with `body`, or undefined when it would accept it. */
export function checkTelegramCall(method: string, body: Record<string, any>): TelegramRefusal | undefined {
  const known = KNOWN_PARAMETERS[method];
  if (known) {
    const unknown = Object.keys(body).find((k) => !known.has(k));
    if (unknown) return badRequest(`unknown parameter "${unknown}" (the real Bot API would silently ignore it)`);
  }
  switch (method) {
    case 'sendMessage':
    case 'editMessageText':
      return checkText(body) ?? checkMarkup(body.reply_markup);
    case 'editMessageReplyMarkup':
      return checkMarkup(body.reply_markup);
    case 'answerCallbackQuery':
      if (typeof body.text === 'string' && body.text.length > MAX_CALLBACK_ANSWER) return badRequest('MESSAGE_TOO_LONG');
      return undefined;
    default:
      return undefined;
  }
}

function checkText(body: Record<string, any>): TelegramRefusal | undefined {
  if (typeof body.text !== 'string') return badRequest('message text is empty');
  let visible: string = body.text;
  if (body.parse_mode === 'HTML') {
    const parsed = parseTelegramHtml(body.text);
    if ('error' in parsed) return badRequest(`can't parse entities: ${parsed.error}`);
    visible = parsed.text;
  } else if (body.parse_mode !== undefined && body.parse_mode !== 'Markdown' && body.parse_mode !== 'MarkdownV2') {
    return badRequest('unsupported parse_mode');
  }
  // Telegram trims the text and counts UTF-16 code units, as its entity offsets do.
  const trimmed = visible.trim();
  if (trimmed.length === 0) return badRequest('message text is empty');
  if (trimmed.length > MAX_MESSAGE_TEXT) return badRequest('message is too long');
  return undefined;
}

function checkMarkup(markup: unknown): TelegramRefusal | undefined {
  if (markup === undefined) return undefined;
  const rows = (markup as { inline_keyboard?: unknown }).inline_keyboard;
  if (!Array.isArray(rows) || rows.some((r) => !Array.isArray(r))) return badRequest("field \"inline_keyboard\" of the InlineKeyboardMarkup should be an Array of Arrays");
  for (const button of rows.flat() as Record<string, unknown>[]) {
    if (typeof button.text !== 'string' || button.text.trim() === '') return badRequest('BUTTON_TEXT_INVALID');
    if ('callback_data' in button) {
      const data = button.callback_data;
      const bytes = typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : 0;
      if (bytes < 1 || bytes > MAX_CALLBACK_DATA_BYTES) return badRequest('BUTTON_DATA_INVALID');
    } else if ('url' in button) {
      if (!isButtonUrl(button.url)) return badRequest('BUTTON_URL_INVALID');
    } else {
      return badRequest('text buttons are unallowed in the inline keyboard');
    }
  }
  return undefined;
}

/** Telegram refuses a button to a host nobody else can open (docs/delivery.md, the chart link). */
const LOCAL_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)$/i;

function isButtonUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return ['http:', 'https:', 'tg:'].includes(url.protocol) && !(url.protocol !== 'tg:' && LOCAL_HOST.test(url.hostname));
  } catch {
    return false;
  }
}

/**
 * Telegram's HTML style (core.telegram.org/bots/api#html-style): these tags only, `span` only as a
 * spoiler, `a` with an href, and the four named entities plus numeric ones.
 */
const TAGS = new Set(['b', 'strong', 'i', 'em', 'u', 'ins', 's', 'strike', 'del', 'span', 'tg-spoiler', 'a', 'code', 'pre', 'blockquote', 'tg-emoji']);
const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

/** The visible text of `html` as Telegram parses it, or the parser's complaint (tdlib's wording). */
export function parseTelegramHtml(html: string): { text: string } | { error: string } {
  const open: string[] = [];
  let text = '';
  let i = 0;
  const offset = (at: number) => Buffer.byteLength(html.slice(0, at), 'utf8');
  while (i < html.length) {
    const ch = html[i]!;
    if (ch === '&') {
      const m = /^&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/.exec(html.slice(i, i + 12));
      const name = m?.[1];
      // tdlib leaves an unknown entity as text; the fake refuses it, since Oddswatch must escape every `&`.
      if (!name || (!name.startsWith('#') && !(name in NAMED_ENTITIES))) return { error: `Unsupported HTML entity at byte offset ${offset(i)}` };
      text += name.startsWith('#x') ? String.fromCodePoint(parseInt(name.slice(2), 16)) : name.startsWith('#') ? String.fromCodePoint(Number(name.slice(1))) : NAMED_ENTITIES[name];
      i += m![0].length;
      continue;
    }
    if (ch !== '<') {
      text += ch;
      i++;
      continue;
    }
    const end = html.indexOf('>', i);
    if (end === -1) return { error: `Unclosed start tag at byte offset ${offset(i)}` };
    const inner = html.slice(i + 1, end);
    if (inner.startsWith('/')) {
      const name = inner.slice(1).trim().toLowerCase();
      if (open.length === 0) return { error: `Unexpected end tag at byte offset ${offset(i)}` };
      const expected = open.pop()!;
      if (name !== expected) {
        return { error: `Unmatched end tag at byte offset ${offset(i)}, expected "</${expected}>", found "</${name}>"` };
      }
    } else {
      const tag = /^([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*$/.exec(inner);
      const name = tag?.[1]?.toLowerCase();
      if (!tag || !name || !TAGS.has(name)) return { error: `Unsupported start tag "${name ?? inner.split(/\s/)[0]}" at byte offset ${offset(i)}` };
      const attributes = tag[2] ?? '';
      if (name === 'span' && !/\bclass\s*=\s*["']?tg-spoiler\b/.test(attributes)) return { error: `Tag "span" must have class "tg-spoiler" at byte offset ${offset(i)}` };
      if (name === 'a' && !/\bhref\s*=/.test(attributes)) return { error: `Tag "a" must have attribute "href" at byte offset ${offset(i)}` };
      open.push(name);
    }
    i = end + 1;
  }
  if (open.length > 0) return { error: `Can't find end tag corresponding to start tag "${open.at(-1)}"` };
  return { text };
}

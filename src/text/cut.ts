/**
 * `text` cut to at most `max` UTF-16 code units (what Discord and Telegram count), ending in `…`
 * when cut. Never splits a surrogate pair: half an emoji is not valid UTF-8, and both platforms
 * refuse the whole message for it.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // a high surrogate whose partner would be cut off
  return `${text.slice(0, end)}…`;
}

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

/**
 * `text` within `max` UTF-16 code units, cut after its last whole line that fits and ending in a
 * line that says how many were left out: a list cut mid-line reads as if it were complete.
 * A first line too long on its own is cut by `cutText`.
 */
export function cutLines(text: string, max: number): string {
  if (text.length <= max) return text;
  const lines = text.split('\n');
  let kept = 0;
  let length = 0;
  for (; kept < lines.length; kept++) {
    const next = length + (kept > 0 ? 1 : 0) + lines[kept]!.length;
    const note = `\n… ${lines.length - kept - 1} more lines not shown`;
    if (next + note.length > max) break;
    length = next;
  }
  if (kept === 0) return cutText(text, max);
  return `${lines.slice(0, kept).join('\n')}\n… ${lines.length - kept} more line${lines.length - kept === 1 ? '' : 's'} not shown`;
}

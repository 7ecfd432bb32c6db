/**
 * An error as one line for the log and /readyz: its message and those of its causes (a network
 * error's reason sits a level or two down), with the bot's secrets blanked out. Telegram's token is
 * part of every request URL, and fetch errors quote the URL.
 */
export function errorText(err: unknown, secrets: readonly (string | undefined)[]): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 4 && !seen.has(e); depth++) {
    seen.add(e);
    if (!(e instanceof Error)) {
      parts.push(String(e));
      break;
    }
    const code = (e as { code?: unknown }).code;
    const text = typeof code === 'string' && !e.message.includes(code) ? `${e.message} (${code})` : e.message;
    if (text && !parts.includes(text)) parts.push(text);
    // grammY's HttpError keeps the underlying error in `error`, everyone else in `cause`.
    e = (e as { error?: unknown }).error ?? e.cause;
  }
  let line = parts.join(': ') || 'unknown error';
  for (const secret of secrets) if (secret) line = line.replaceAll(secret, '[redacted]');
  return line;
}

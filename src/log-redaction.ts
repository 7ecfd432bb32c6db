// What keeps secrets out of the logs, whatever logs them: SQL parameters are taken off database
// errors before they are serialized, and every finished log line is scrubbed of known secret shapes.

/** Properties of database errors that hold the query's values (drizzle, PGlite, postgres.js). */
const VALUE_KEYS = new Set(['params', 'parameters', 'args', 'queryOptions', 'types', 'detail']);
const MAX_DEPTH = 5;

/**
 * A copy of `err` (same class, so its type is still logged) without SQL parameters: drizzle's
 * "Failed query: …\nparams: …" message keeps only the query, and value-bearing properties such as
 * PGlite's `params` or PostgreSQL's `detail` ("Failing row contains (…)") are dropped. Causes and
 * aggregated errors are copied the same way.
 */
export function withoutSqlValues(err: Error): Error {
  if (!carriesSqlValues(err)) return err;
  try {
    return copyWithoutSqlValues(err, 0);
  } catch {
    // A class whose getters need the original instance: the line scrubbing still guards it.
    return err;
  }
}

function carriesSqlValues(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth >= MAX_DEPTH) return false;
  if (Object.getOwnPropertyNames(err).some((key) => VALUE_KEYS.has(key))) return true;
  const { cause, errors } = err as Error & { errors?: unknown };
  return carriesSqlValues(cause, depth + 1) || (Array.isArray(errors) && errors.some((e) => carriesSqlValues(e, depth + 1)));
}

function copyWithoutSqlValues(err: Error, depth: number): Error {
  if (depth >= MAX_DEPTH || !carriesSqlValues(err)) return err;
  const copy = Object.create(Object.getPrototypeOf(err) as object) as Error & Record<string, unknown>;
  const source = err as Error & Record<string, unknown>;
  const cleanMessage = drizzleMessageWithoutParams(source);
  for (const key of Object.getOwnPropertyNames(err)) {
    if (VALUE_KEYS.has(key)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(err, key)!;
    let value: unknown = descriptor.value;
    if (key === 'message' && cleanMessage !== undefined) value = cleanMessage;
    else if (key === 'stack' && cleanMessage !== undefined && typeof value === 'string') value = value.replace(err.message, cleanMessage);
    else if (key === 'cause' && value instanceof Error) value = copyWithoutSqlValues(value, depth + 1);
    else if (key === 'errors' && Array.isArray(value)) value = value.map((e: unknown) => (e instanceof Error ? copyWithoutSqlValues(e, depth + 1) : e));
    if ('value' in descriptor) Object.defineProperty(copy, key, { ...descriptor, value });
  }
  return copy;
}

function drizzleMessageWithoutParams(err: Record<string, unknown> & Error): string | undefined {
  if (typeof err.query !== 'string' || !('params' in err)) return undefined;
  const cut = err.message.indexOf('\nparams: ');
  return cut === -1 ? undefined : err.message.slice(0, cut);
}

/** Every Error among a log call's values (top level), without its SQL values. */
export function logObjectWithoutSqlValues(obj: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (value instanceof Error) (out ??= { ...obj })[key] = withoutSqlValues(value);
  }
  return out ?? obj;
}

const R = '[redacted]';

const LOOPBACK_HOST = /^https?:\/\/(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?$/i;
const isLoopbackOrigin = (origin: string) => LOOPBACK_HOST.test(origin);

// Applied to the JSON text of every line. No pattern can match a `"` or a `\`, so the line stays
// valid JSON; the drizzle fallback stops at the end of the JSON string it is in.
type Replacement = string | ((match: string, ...groups: string[]) => string);

const SECRET_SHAPES: [RegExp, Replacement][] = [
  // drizzle's message when it reaches a line some other way (e.g. a log call without its own msg)
  [/\\nparams: (?:[^"\\]|\\.)*/g, `\\nparams: ${R}`],
  // API tokens and webhook signing secrets
  [/ow_[A-Za-z0-9_-]{8,}/g, `ow_${R}`],
  // web console session secrets (the cookie's value) and /login codes
  [/ow([sl])_[A-Za-z0-9_-]{8,}/g, (_match, kind) => `ow${kind}_${R}`],
  [/whsec_[A-Za-z0-9+/=]{8,}/g, `whsec_${R}`],
  // Telegram bot tokens (also inside https://api.telegram.org/bot<token>/…)
  [/\d+:[A-Za-z0-9_-]{35}/g, R],
  // Discord webhook paths, even without a host
  [/\/api\/webhooks\/[^\s"\\]+/g, `/api/webhooks/${R}`],
  // Any absolute URL keeps its origin only: a webhook URL's path and query are its credential. A
  // loopback URL (this machine's own listeners: the API, the simulator's control) keeps its path.
  [/(https?:\/\/[^/\s"\\?#]+)([/?#][^\s"\\]*)/g, (_match, origin, rest) => `${origin}${isLoopbackOrigin(origin) ? rest.replace(/[?#].*$/, '') : `/${R}`}`],
  // Credentials in a query string that is not part of an absolute URL (e.g. a request's own URL)
  [/([?&](?:access_token|token|secret|api_key|apikey|key|password|signature|sig)=)[^&\s"\\]*/gi, `$1${R}`],
];

/** The line with every known secret shape replaced. */
export function redactSecrets(line: string): string {
  let out = line;
  for (const [pattern, replacement] of SECRET_SHAPES) {
    out = typeof replacement === 'string' ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
  }
  return out;
}

/** A request URL as logged: the path only, since a query string may carry credentials. */
export function urlWithoutQuery(url: unknown): unknown {
  if (typeof url !== 'string') return R;
  const cut = url.indexOf('?');
  return cut === -1 ? url : `${url.slice(0, cut)}?${R}`;
}

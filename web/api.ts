// The console's only way to the service: the same REST API as everyone else, with the session
// cookie (sent by the browser) and the CSRF token (kept here) on every change.

const CSRF_KEY = 'oddswatch.csrf';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let onSignedOut: () => void = () => {};
/** Called when the service answers 401: the session ended (revoked, expired, signed out elsewhere). */
export const whenSignedOut = (fn: () => void) => {
  onSignedOut = fn;
};

export const rememberCsrf = (token: string | null) =>
  token === null ? localStorage.removeItem(CSRF_KEY) : localStorage.setItem(CSRF_KEY, token);

/** Whether this browser holds a session's CSRF token, i.e. probably a session cookie too. */
export const hasSession = () => localStorage.getItem(CSRF_KEY) !== null;

export async function api<T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = localStorage.getItem(CSRF_KEY) ?? '';
  const res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const data = (await res.json().catch(() => ({}))) as { error?: string };
  if (!res.ok) {
    if (res.status === 401 && path !== '/sessions') {
      rememberCsrf(null);
      onSignedOut();
    }
    throw new ApiError(res.status, data.error ?? `${res.status} ${res.statusText}`);
  }
  return data as T;
}

export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

// The shapes the console reads (the OpenAPI document at /openapi.json has them all).
export interface Me {
  userId: string;
  createdAt: string;
  links: { discord: string | null; telegram: string | null };
}
/** `POST /links`: a one-time code for `/link <code>` in Telegram or Discord. */
export interface LinkCode {
  code: string;
  expiresAt: string;
}
export interface Notification {
  id: string;
  createdAt: string;
  readAt: string | null;
  payload: Record<string, unknown>;
}
export interface Delivery {
  id: string;
  channel: string;
  status: string;
  attempts: { at: string; statusCode: number | null; error: string | null; durationMs: number }[];
}
export interface SearchEvent {
  id: string;
  title: string;
  markets: { id: string; question: string; outcomePrices: string }[];
}
export interface Watchlist {
  id: string;
  name: string;
  query: { keyphrases: { text: string; include: boolean }[]; tags: { tagSlug: string; include: boolean }[]; searchMatchOperator: 'OR' | 'AND' };
  automaticallyAddMatchingEvents: boolean;
  events: Record<string, { autoFetch: boolean; markets: string[] }>;
}
export interface PriceHistory {
  marketId: string;
  question: string;
  current: number | null;
  points: { at: string; price: number }[];
}
export interface Subscription {
  subscriptionId: string;
  watchlistName: string;
  eventTitle?: string;
  marketQuestion?: string;
  subscriptionScope: string;
  subscriptionTypeConfig: { type: string; config: { params: Record<string, unknown> } };
  status: { enabled: boolean; reason: string };
  triggerType: string;
  triggerInterval?: string;
  triggerCount: number;
  lastTriggeredAt: string | null;
  channels: { type: string; status?: string }[];
}
export interface TokenSummary {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  kind: 'token' | 'session';
}

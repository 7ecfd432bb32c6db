import { setTimeout } from 'node:timers/promises';
import pRetry, { AbortError } from 'p-retry';
import type { Logger } from '../logger.js';
import { retryAfterHeaderMs } from '../net/retry-after.js';

export type FetchFn = typeof globalThis.fetch;

export interface RetryPolicy {
  retries: number;
  minDelayMs: number;
  maxDelayMs: number;
  /** A longer Retry-After than this is cut short (a misconfigured venue must not stall a sync). */
  maxRetryAfterMs?: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, minDelayMs: 250, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 };

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly url: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(`HTTP ${status} from ${url}`);
    this.name = 'HttpError';
  }
}

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

export interface JsonRequest {
  fetch: FetchFn;
  url: string;
  logger: Logger;
  timeoutMs: number;
  retry?: RetryPolicy;
  method?: 'GET' | 'POST';
  body?: unknown;
  /** Aborts the attempt in flight and every retry still to come (the role that asked is stopping). */
  signal?: AbortSignal;
}

const sleep = (ms: number, signal: AbortSignal | undefined) => setTimeout(ms, undefined, signal ? { signal } : {});

/**
 * One JSON request with a per-attempt timeout. 429, 5xx, timeouts and network errors are retried
 * with exponential back-off; a Retry-After header is waited out before the next attempt.
 */
export async function requestJson(req: JsonRequest): Promise<unknown> {
  const policy = req.retry ?? DEFAULT_RETRY;
  return pRetry(() => attempt(req), {
    ...(req.signal ? { signal: req.signal } : {}),
    retries: policy.retries,
    minTimeout: policy.minDelayMs,
    maxTimeout: policy.maxDelayMs,
    randomize: true,
    onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
      req.logger.debug({ path: pathOf(req.url), attemptNumber, retriesLeft, err: error.message }, 'venue request failed');
      if (retriesLeft > 0 && error instanceof HttpError && error.retryAfterMs !== undefined) {
        await sleep(Math.min(error.retryAfterMs, policy.maxRetryAfterMs ?? 60_000), req.signal);
      }
    },
  });
}

async function attempt(req: JsonRequest): Promise<unknown> {
  const init: RequestInit = {
    method: req.method ?? 'GET',
    headers: { accept: 'application/json', ...(req.body === undefined ? {} : { 'content-type': 'application/json' }) },
    signal: req.signal ? AbortSignal.any([AbortSignal.timeout(req.timeoutMs), req.signal]) : AbortSignal.timeout(req.timeoutMs),
  };
  if (req.body !== undefined) init.body = JSON.stringify(req.body);
  const res = await req.fetch(req.url, init);
  if (!res.ok) {
    await res.body?.cancel();
    const error = new HttpError(res.status, pathOf(req.url), retryAfterHeaderMs(res.headers.get('retry-after')));
    throw isRetryableStatus(res.status) ? error : new AbortError(error);
  }
  return res.json();
}

// Query strings can carry cursors and ids; logs keep the path only.
function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

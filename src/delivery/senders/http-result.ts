import { NetworkError, type PostJsonResponse } from '../../net/http-post.js';
import type { SendResult } from './types.js';

export function isSuccess(statusCode: number): boolean {
  return statusCode >= 200 && statusCode < 300;
}

/** "HTTP 500: <first line of the body>", short enough for an attempt record. */
export function httpError(response: PostJsonResponse, maxBodyChars = 200): string {
  const snippet = response.body.replace(/\s+/g, ' ').trim().slice(0, maxBodyChars);
  return snippet ? `HTTP ${response.statusCode}: ${snippet}` : `HTTP ${response.statusCode}`;
}

export function parseJsonObject(body: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // a truncated or non-JSON body is handled by status code alone
  }
}

/**
 * A network failure as a send result: an address refused by the SSRF guard is permanent, anything
 * else (timeout, refused, DNS, reset) is worth another try. Other errors are bugs and propagate.
 */
export function networkFailure(err: unknown): SendResult {
  if (!(err instanceof NetworkError)) throw err;
  return {
    outcome: err.kind === 'unsafe_address' ? 'failed' : 'retry',
    error: err.message,
    durationMs: err.durationMs,
  };
}

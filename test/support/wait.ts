// Waiting in tests: on a condition, never on the clock. A test that needs time itself to pass
// (expiry, intervals, leases) injects a clock into the code instead of sleeping.

export interface WaitOptions {
  /** Give up after this long (default 8 s: generous for a loaded CI machine, short for a hang). */
  timeoutMs?: number;
  /** Time between two checks (default 25 ms). */
  intervalMs?: number;
  /** What is awaited, for the timeout's error: "timed out after 8000 ms waiting for <message>". */
  message?: string;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Checks `condition` until it answers a truthy value, and answers that value. A condition that
 * throws (an `expect` not met yet) counts as not yet; on timeout, its last error is the cause.
 */
export async function waitFor<T>(
  condition: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  { timeoutMs = 8000, intervalMs = 25, message = 'the condition' }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: unknown;
    try {
      const value = await condition();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${message}`, last === undefined ? undefined : { cause: last });
    }
    await pause(intervalMs);
  }
}

/**
 * Proves that something does NOT happen within `ms`: checks `happened` throughout and fails as
 * soon as it answers something (a truthy value, or a non-empty array). The wait is bounded by
 * nature: it says "not within this window", which is what such a test can say.
 */
export async function expectNothingFor<T>(
  ms: number,
  happened: () => Promise<T> | T,
  { intervalMs = 25, message = 'something' }: Pick<WaitOptions, 'intervalMs' | 'message'> = {},
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await happened();
    if (Array.isArray(value) ? value.length > 0 : value) {
      throw new Error(`expected nothing within ${ms} ms, but ${message} happened: ${JSON.stringify(value)}`);
    }
    if (Date.now() >= deadline) return;
    await pause(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}

/**
 * A clock a test moves by hand: real time plus an offset, so timestamps the code writes with its
 * own clock stay in order with the ones it reads through this one.
 */
export function testClock() {
  let offsetMs = 0;
  return {
    now: () => Date.now() + offsetMs,
    advance(ms: number) {
      offsetMs += ms;
    },
  };
}

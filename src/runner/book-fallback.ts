import type { Logger } from '../logger.js';

export interface BookFallbackOptions {
  /** How long a newly followed token waits for its stream snapshot (ms). */
  waitMs: number;
  /** Whether a token still needs a book: this process follows it and its reference is not set yet. */
  wanted(token: string): boolean;
  /** Asks the venue for these tokens' books and hands them on; absent when there is no REST client. */
  fetch?: (tokens: string[]) => Promise<void>;
  logger: Logger;
}

export interface BookFallback {
  /** Rules started following these tokens: each gets a REST book if its wait ends without a reference. */
  followed(tokens: readonly string[]): void;
  stop(): void;
}

/**
 * REST books for newly followed tokens whose stream snapshot did not come in time. One timer for
 * all of them (every token waits as long, so they end in the order they began), and one request
 * at a time: tokens whose wait ends while a request is on its way go together in the next.
 */
export function createBookFallback(options: BookFallbackOptions): BookFallback {
  const { fetch, wanted, logger } = options;
  const waitEndsAt = new Map<string, number>();
  let due = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let asking = false;
  let stopped = false;

  const arm = () => {
    if (timer || stopped) return;
    const first = waitEndsAt.values().next();
    if (first.done) return;
    timer = setTimeout(expire, Math.max(0, first.value - Date.now()));
    timer.unref();
  };
  const expire = () => {
    timer = undefined;
    const nowMs = Date.now();
    for (const [token, at] of waitEndsAt) {
      if (at > nowMs) break;
      waitEndsAt.delete(token);
      due.add(token);
    }
    request();
    arm();
  };
  const request = () => {
    if (!fetch || asking || stopped) return;
    const tokens = [...due].filter(wanted);
    due = new Set();
    if (tokens.length === 0) return;
    asking = true;
    fetch(tokens)
      .catch((error: unknown) => logger.warn({ err: error, tokens: tokens.length }, 'fetching books of newly followed tokens failed'))
      .finally(() => {
        asking = false;
        request();
      });
  };

  return {
    followed(tokens) {
      if (!fetch || stopped) return;
      const at = Date.now() + options.waitMs;
      for (const token of tokens) {
        // Followed again: its wait starts again (and keeps the map in order of its end).
        waitEndsAt.delete(token);
        waitEndsAt.set(token, at);
      }
      arm();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      waitEndsAt.clear();
      due.clear();
    },
  };
}

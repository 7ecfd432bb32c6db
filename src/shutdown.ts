import type { Logger } from './logger.js';

/** The whole drain must fit in docker's and systemd's usual grace before SIGKILL. */
export const STOP_DEADLINE_MS = 10_000;

/**
 * A signal this soon after the first is the same request delivered twice: Ctrl-C under `npm start`
 * reaches the service from the terminal and again as npm forwards it.
 */
const ECHO_WINDOW_MS = 500;

export interface StopSignalOptions {
  deadlineMs?: number;
  echoWindowMs?: number;
  exit?: (code: number) => void;
  /** The clock of the echo window (tests move it instead of waiting the window out). */
  now?: () => number;
}

/**
 * SIGTERM or SIGINT stops the service gracefully (no new work, in-flight work drained, database
 * closed) and exits 0. A second signal, or a drain still running at the deadline, exits 1 at once:
 * the operator asked twice, or something hangs; whatever was not drained is picked up by the next
 * start (deliveries' leases expire, firings not yet written are found again from the stored prices).
 * Answers a function that removes the handlers.
 */
export function exitOnStopSignals(stop: () => Promise<void>, logger: Logger, options: StopSignalOptions = {}): () => void {
  const { deadlineMs = STOP_DEADLINE_MS, echoWindowMs = ECHO_WINDOW_MS, exit = (code) => process.exit(code), now = Date.now } = options;
  let stopping = false;
  let firstAt = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping && now() - firstAt < echoWindowMs) return;
    if (stopping) {
      logger.warn({ signal }, 'second stop signal: exiting before the drain finished');
      return exit(1);
    }
    stopping = true;
    firstAt = now();
    logger.info({ signal, deadlineMs }, 'shutting down');
    setTimeout(() => {
      logger.error({ deadlineMs }, 'shutdown passed its deadline: exiting before the drain finished');
      exit(1);
    }, deadlineMs).unref();
    stop().then(
      () => exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}

import { setTimeout as sleep } from 'node:timers/promises';
import pRetry, { AbortError } from 'p-retry';
import type { AdvisoryLock } from '../db/client.js';
import type { Logger } from '../logger.js';

/**
 * Keeps one chat platform connected in the background, so the service never waits on it: start
 * returns at once, a platform that is down is retried with jittered backoff, a refused token turns
 * the bot off (one error line), and stop returns promptly whatever the connection is doing.
 *
 * With `acquire`, only the process holding the platform's advisory lock connects (one Telegram
 * poller, one Discord gateway session per database); the others stand by and try again
 * periodically, so a stopped or dead holder is replaced within a few seconds.
 */

export const BOT_STATES = ['starting', 'standby', 'connected', 'backoff', 'disabled', 'stopped'] as const;
export type BotState = (typeof BOT_STATES)[number];
export type BotPlatform = 'telegram' | 'discord';

export interface BotStatus {
  platform: BotPlatform;
  /** How updates arrive: `polling` or `webhook` (Telegram), `gateway` or `http` (Discord). */
  mode: string;
  state: BotState;
  /** When the state last changed (ISO 8601). */
  since: string;
  /** Why the last attempt failed or the connection dropped, without secrets. */
  lastError?: string;
  /** Failed attempts since the last success. */
  failures: number;
}

/** A live connection. `ended` settles when it drops by itself, with the reason. */
export interface BotSession {
  ended: Promise<unknown>;
  /** Closes the connection; returns within a couple of seconds even if the platform hangs. */
  close(): Promise<void>;
}

/** What the connection reports while it runs (a poll that fails, then works again). */
export interface SessionEvents {
  degraded(reason: unknown): void;
  restored(): void;
}

export interface BotConnector {
  platform: BotPlatform;
  mode: string;
  /** One attempt; resolves once connected. Must give up when `signal` aborts. */
  connect(signal: AbortSignal, events: SessionEvents): Promise<BotSession>;
  /** True when retrying cannot help: the platform refused the token. */
  isFatal(err: unknown): boolean;
  /** One line for the log and /readyz, without secrets. */
  describe(err: unknown): string;
}

export interface BotTiming {
  /** First and longest wait between failed attempts (ms); each wait is randomised ×1–2. */
  backoffMinMs: number;
  backoffMaxMs: number;
  /** An attempt with no answer by then counts as failed (a platform that accepts and never answers). */
  connectTimeoutMs: number;
  /** How often a standby process tries to become the holder, and the holder checks it still is. */
  holderRetryMs: number;
}

export const DEFAULT_BOT_TIMING: BotTiming = { backoffMinMs: 1000, backoffMaxMs: 60_000, connectTimeoutMs: 30_000, holderRetryMs: 2000 };

export interface SuperviseOptions {
  connector: BotConnector;
  logger: Logger;
  /** Takes the platform's holder lock, or undefined when another process holds it. Absent: every process connects. */
  acquire?: () => Promise<AdvisoryLock | undefined>;
  timing?: Partial<BotTiming>;
}

export interface SupervisedBot {
  status(): BotStatus;
  stop(): Promise<void>;
}

/** Bounds a close that may hang on the platform: stop must return promptly. */
export async function closeWithin(ms: number, close: () => Promise<unknown>): Promise<void> {
  await Promise.race([close().catch(() => {}), sleep(ms, undefined, { ref: false })]);
}

class Stopped extends Error {}

export function superviseBot({ connector, logger: parent, acquire, timing: given }: SuperviseOptions): SupervisedBot {
  const timing = { ...DEFAULT_BOT_TIMING, ...given };
  const logger = parent.child({ component: `${connector.platform}-bot` });
  const stopping = new AbortController();
  const { signal } = stopping;
  let status: BotStatus = { platform: connector.platform, mode: connector.mode, state: 'starting', since: new Date().toISOString(), failures: 0 };
  let session: BotSession | undefined;

  const set = (state: BotState, change: Partial<Pick<BotStatus, 'lastError' | 'failures'>> = {}) => {
    const since = state === status.state ? status.since : new Date().toISOString();
    status = { ...status, ...change, state, since };
  };

  const events: SessionEvents = {
    degraded(reason) {
      if (status.state !== 'connected') return;
      // Logged on the change only: the library retries every few seconds by itself.
      const lastError = connector.describe(reason);
      logger.warn({ error: lastError }, `${connector.platform}: the connection is failing; retrying`);
      set('backoff', { lastError, failures: status.failures + 1 });
    },
    restored() {
      if (status.state !== 'backoff' || !session) return;
      logger.info(`${connector.platform}: the connection works again`);
      set('connected', { failures: 0 });
    },
  };

  async function connectWithBackoff(): Promise<BotSession> {
    return pRetry(
      async () => {
        if (status.state !== 'backoff') set('starting');
        const attempt = AbortSignal.any([signal, AbortSignal.timeout(timing.connectTimeoutMs)]);
        let connected: BotSession;
        try {
          connected = await connector.connect(attempt, events);
        } catch (err) {
          if (signal.aborted) throw new AbortError(new Stopped());
          if (connector.isFatal(err)) throw new AbortError(err instanceof Error ? err : new Error(String(err)));
          // A plain Error: p-retry would not retry some TypeErrors (fetch's own), and the text is already safe.
          throw new Error(attempt.aborted ? `no answer within ${timing.connectTimeoutMs} ms` : connector.describe(err));
        }
        if (signal.aborted) {
          await connected.close();
          throw new AbortError(new Stopped());
        }
        return connected;
      },
      {
        retries: Infinity,
        factor: 2,
        minTimeout: timing.backoffMinMs,
        maxTimeout: timing.backoffMaxMs,
        randomize: true,
        signal,
        onFailedAttempt: ({ error, attemptNumber }) => {
          set('backoff', { lastError: error.message, failures: status.failures + 1 });
          logger.warn({ attempt: attemptNumber, error: error.message }, `${connector.platform}: could not connect; retrying after a backoff`);
        },
      },
    );
  }

  /** Resolves with a reason once the lock is no longer ours; stops checking when `until` aborts. */
  async function lockLost(lock: AdvisoryLock, until: AbortSignal): Promise<Error | undefined> {
    while (!until.aborted) {
      await sleep(timing.holderRetryMs, undefined, { signal: until }).catch(() => {});
      if (until.aborted) return undefined;
      // A database that does not answer counts as lost too: better no poller for a moment than two.
      const held = await Promise.race([lock.held(), sleep(timing.holderRetryMs * 5, false, { ref: false })]);
      if (!held) return new Error('lost the holder lock (its database session ended); another process may connect now');
    }
    return undefined;
  }

  async function holdOrStandBy(): Promise<AdvisoryLock | undefined> {
    if (!acquire) return undefined;
    let announced = false;
    let failing = false;
    while (!signal.aborted) {
      let lock: AdvisoryLock | undefined;
      try {
        lock = await acquire();
        failing = false;
      } catch (err) {
        // Once per outage, not at every retry: the database's own health shows in /readyz.
        if (!failing) logger.warn({ err }, `${connector.platform}: could not ask the database who holds the connection; retrying`);
        failing = true;
      }
      if (lock) {
        if (announced) logger.info(`${connector.platform}: this process now holds the connection`);
        return lock;
      }
      if (!announced && !failing) {
        logger.info(`${connector.platform}: another process holds the connection; standing by`);
        announced = true;
      }
      set('standby');
      await sleep(timing.holderRetryMs, undefined, { signal }).catch(() => {});
    }
    throw new Stopped();
  }

  /**
   * A connection that drops soon after connecting (Telegram's 409 when another deployment polls
   * with the same token) is retried after a growing pause too, not in a tight loop.
   */
  let quickDrops = 0;
  async function pauseAfterDrop(connectedFor: number) {
    quickDrops = connectedFor < timing.backoffMaxMs ? quickDrops + 1 : 0;
    if (quickDrops === 0) return;
    const ms = Math.min(timing.backoffMaxMs, timing.backoffMinMs * 2 ** (quickDrops - 1)) * (1 + Math.random());
    await sleep(ms, undefined, { signal }).catch(() => {});
  }

  async function run(): Promise<void> {
    while (!signal.aborted) {
      let lock: AdvisoryLock | undefined;
      try {
        lock = await holdOrStandBy();
        session = await connectWithBackoff();
        set('connected', { failures: 0 });
        const connectedAt = Date.now();
        logger.info({ mode: connector.mode }, `${connector.platform}: connected`);
        const watching = new AbortController();
        const reason = await Promise.race([
          session.ended,
          ...(lock ? [lockLost(lock, watching.signal).then((lost) => lost ?? new Promise(() => {}))] : []),
          new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true, signal: watching.signal })),
        ]);
        watching.abort();
        const ending = session;
        session = undefined;
        await closeWithin(2000, () => ending.close());
        if (signal.aborted) break;
        if (connector.isFatal(reason)) throw reason;
        const lastError = connector.describe(reason);
        logger.warn({ error: lastError }, `${connector.platform}: the connection ended; reconnecting`);
        set('backoff', { lastError, failures: status.failures + 1 });
        await lock?.release().catch(() => {});
        lock = undefined;
        await pauseAfterDrop(Date.now() - connectedAt);
      } catch (err) {
        if (signal.aborted || err instanceof Stopped) break;
        if (connector.isFatal(err)) {
          const lastError = connector.describe(err);
          set('disabled', { lastError, failures: status.failures + 1 });
          logger.error({ error: lastError }, `${connector.platform}: the token was refused; this bot stays off until the token is fixed and the service restarts`);
          return;
        }
        logger.error({ error: connector.describe(err) }, `${connector.platform}: unexpected failure; retrying`);
        await sleep(timing.holderRetryMs, undefined, { signal }).catch(() => {});
      } finally {
        // Released only after the session is closed: the next holder must not overlap with us.
        await lock?.release().catch(() => {});
      }
    }
  }

  const running = run()
    .catch((err: unknown) => logger.error({ error: connector.describe(err) }, `${connector.platform}: the bot supervisor failed`))
    .finally(() => {
      if (status.state !== 'disabled') set('stopped');
    });

  return {
    status: () => status,
    async stop() {
      stopping.abort(new Stopped());
      await Promise.race([running, sleep(3000, undefined, { ref: false })]);
    },
  };
}

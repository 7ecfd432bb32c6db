import type { Config } from '../config.js';
import type { Database, Unlisten } from '../db/client.js';
import type { Logger } from '../logger.js';
import { previousSecretInGrace } from '../services/accounts/webhook-secret.js';
import { newId } from '../services/ids.js';
import { DELIVERY_DUE_CHANNEL } from '../db/coordination.js';
import { marketChartUrl } from '../domain/links.js';
import { claimDueDeliveries, recordAttempts, releaseClaims, type AttemptRecord, type HealthTracking, type ClaimedDelivery, type ClaimedWithContext, type SendContext } from './outbox-store.js';
import { batchKindOf } from './batches.js';
import { groupForChat } from './chat-groups.js';
import { enablePath } from './health-notice.js';
import { CHANNEL_RETRY_RULES, nextAttempt } from './retry-policy.js';
import type { DeliveryJob, SendResult, Senders } from './senders/index.js';
import type { DeliveryHandoff } from './handoff.js';

export interface DeliveryWorkerOptions {
  database: Database;
  senders: Senders;
  logger: Logger;
  config: Pick<
    Config,
    'WEBHOOK_RETRY_DELAY_MS' | 'PUBLIC_URL' | 'WEBHOOK_SECRET_GRACE_MS' | 'ENDPOINT_DISABLE_AFTER_MS' | 'ENDPOINT_DISABLE_MIN_NOTIFICATIONS'
  >;
  concurrency?: number;
  /** How long a claim lasts; a crashed worker's deliveries are taken over after it. */
  leaseMs?: number;
  pollMs?: number;
  workerId?: string;
  /** How long `stop()` waits for the sends in flight before giving them back to the queue. */
  drainMs?: number;
  /**
   * The clock of the signing-secret grace window and of endpoint health's failing span (tests move
   * it instead of waiting them out).
   */
  now?: () => number;
  /**
   * The clock deliveries are due by: tests of quiet hours and digests move it past a batch's end.
   * Default: the database's clock.
   */
  dueClock?: () => number;
  /**
   * The engine of this process hands this worker the deliveries its firing writes lease to it
   * (handoff.ts): sent after the commit, with no notice wake-up and no claim.
   */
  handoff?: DeliveryHandoff;
}

export interface DeliveryWorker {
  /**
   * Stops claiming and waits (up to `drainMs`) for the sends in flight and their records; claims
   * whose send has not answered by then are released back to the queue, unsent as far as we know.
   */
  stop(): Promise<void>;
}

/** The default send timeout: most sends in flight finish in it, within the 10 s shutdown deadline. */
const DEFAULT_DRAIN_MS = 5000;

/** Most attempts recorded in one transaction. */
const RECORD_BATCH = 500;

/**
 * Claims due deliveries (woken by LISTEN and a timer) with their send context in one query, sends
 * them with bounded concurrency, and records the outcomes in batches: while one batch is being
 * written, the outcomes that finish meanwhile queue up for the next. The concurrency bounds the
 * sends in flight; claiming pauses while a full batch of outcomes waits to be recorded.
 */
export async function startDeliveryWorker(opts: DeliveryWorkerOptions): Promise<DeliveryWorker> {
  const { database, senders, config, concurrency = 16, leaseMs = 30_000, pollMs = 1000, drainMs = DEFAULT_DRAIN_MS, now = Date.now } = opts;
  const logger = opts.logger.child({ worker: opts.workerId ?? newId() });
  const inFlight = new Set<Promise<void>>();
  const retryTimers = new Set<NodeJS.Timeout>();
  let running = true;
  let pumping: Promise<void> | undefined;
  let again = false;
  /** Sends in flight: bounded by the concurrency. A delivery whose outcome awaits recording no longer counts. */
  let sending = 0;
  /** Slots promised to firing writes not committed yet (hand-off): no claim takes them meanwhile. */
  let reserved = 0;
  /** A stop waiting for the firing writes in flight to commit or roll back (their reservations settled). */
  let reservationsSettled: (() => void) | undefined;
  /** Releases of deliveries handed over while stopping: the stop waits for them. */
  const releasing = new Set<Promise<void>>();
  /** The claims of those sends: a stop that cannot wait for them releases them. */
  const unanswered = new Map<string, ClaimedDelivery>();
  /**
   * Whether due deliveries may be left behind: the last claim took all it asked for (or none has run
   * yet). Only then does a freed slot claim again. A claim that took fewer found the queue drained;
   * what becomes due later announces itself (the notice of a write, a retry's timer, the poll).
   * Claiming on every freed slot anyway cost a statement that found nothing after each send and each
   * record, and on PGlite, whose queries run on the service's one thread, the one right after a
   * claim held up the send it followed by ~2 ms.
   */
  let backlog = true;
  /**
   * A wake no claim has started after: one that came while every slot was taken (or a full batch of
   * outcomes waited) is served by the next freed slot, not left for the poll.
   */
  let announced = false;

  /** Something may have become due (a notice, a retry's timer, the poll): claim. */
  const wake = () => {
    if (!running) return;
    announced = true;
    if (pumping) {
      again = true;
      return;
    }
    pumping = pump().finally(() => (pumping = undefined));
  };

  /** A send or its record finished: its slot takes what the last claim may have left behind. */
  const slotFreed = () => {
    if (backlog || announced) wake();
  };

  async function pump() {
    do {
      again = false;
      while (running && sending + reserved < concurrency && toRecord.length < RECORD_BATCH) {
        const dueBy = opts.dueClock ? new Date(opts.dueClock()) : undefined;
        const limit = concurrency - sending - reserved;
        announced = false;
        const claimed = await claimDueDeliveries(database, limit, leaseMs, dueBy).catch((err: unknown) => {
          logger.error({ err }, 'claiming deliveries failed');
          return [];
        });
        // A batched delivery brings its whole batch, so a claim can take more than it asked for.
        backlog = claimed.length >= limit;
        if (claimed.length === 0) break;
        // Claimed while stopping: not sent, given back at once rather than left to the lease.
        if (!running) await release(claimed);
        else for (const group of groupForChat(claimed)) track(group);
        if (!backlog) break;
      }
    } while (again && running);
  }

  /** One send: a delivery, or chat deliveries told in one message (each still gets its own record). */
  function track(group: [ClaimedWithContext, ...ClaimedWithContext[]]) {
    sending += group.length;
    for (const delivery of group) unanswered.set(delivery.id, delivery);
    const work: Promise<void> = deliver(group)
      .catch((err: unknown) => logger.error({ err, deliveryIds: group.map((d) => d.id) }, 'delivery failed unexpectedly'))
      .finally(() => {
        inFlight.delete(work);
        slotFreed(); // recorded: claiming may have paused for a full batch of records
      });
    inFlight.add(work);
  }

  async function deliver(group: [ClaimedWithContext, ...ClaimedWithContext[]]) {
    const [delivery, ...others] = group;
    const { context } = delivery;
    const attempt = delivery.attempts + 1;
    const skipped = Boolean(context.disabledReason);
    let result: SendResult;
    try {
      // A disabled channel is not called at all: its delivery is recorded FAILED with the reason.
      result = skipped
        ? { outcome: 'failed', error: disabledError(delivery, context), durationMs: 0 }
        : await send(delivery, {
            ...buildJob(delivery, context, attempt, config, now()),
            ...(delivery.batchKey
              ? { batch: { kind: batchKindOf(delivery.batchKey), items: group.map((d) => ({ notificationId: d.notificationId, payload: d.context.payload, rule: d.context.rule ?? null })) } }
              : others.length > 0
                ? { alsoFired: others.map((d) => ({ payload: d.context.payload, rule: d.context.rule ?? null })) }
                : {}),
          });
    } finally {
      sending -= group.length;
      for (const d of group) unanswered.delete(d.id);
      slotFreed(); // claim more while the outcomes are recorded
    }
    await settle(group, result, skipped);
  }

  /**
   * Records each delivery's outcome of one send and schedules the retries. A send's records go in
   * one write: a batch retried must not be claimed again in part while the rest are still leased.
   */
  async function settle(group: readonly ClaimedWithContext[], result: SendResult, skipped: boolean) {
    const nexts = group.map((delivery) =>
      nextAttempt({
        attempt: delivery.attempts + 1,
        result,
        rateLimitedBefore: delivery.context.rateLimitedBefore,
        retryDelayMs: config.WEBHOOK_RETRY_DELAY_MS,
        freeRateLimitedRetries: CHANNEL_RETRY_RULES[delivery.channelType].freeRateLimitedRetries,
      }),
    );
    const kept = await record(group.map((delivery, i) => ({ delivery, outcome: { result, status: nexts[i]!.status, retryDelayMs: nexts[i]!.retryAtDelayMs, skipped } })));
    group.forEach((delivery, i) => {
      const next = nexts[i]!;
      if (!kept[i]) logger.warn({ deliveryId: delivery.id }, 'lease lost before the result was recorded; another worker owns it');
      if (kept[i] && next.status === 'PENDING') scheduleWake(next.retryAtDelayMs ?? 0);
    });
  }

  // The channel is named by subscription and position only: its URL or chat id may hold a secret.
  const healthTracking: HealthTracking = {
    settings: config,
    now,
    onChange: (row, verdict) =>
      logger.warn(
        { subscriptionId: row.subscriptionId, position: row.position, channelType: row.type, failedNotifications: row.failedNotifications, ...(verdict.kind === 'disable' ? { reason: verdict.reason } : {}) },
        verdict.kind === 'disable' ? 'channel disabled by endpoint health' : 'channel failing: endpoint health warning sent',
      ),
  };

  const toRecord: Array<{ record: AttemptRecord; done: (kept: boolean) => void; failed: (err: unknown) => void; send: object }> = [];
  let recording = false;

  /** Queues one send's records (kept together in one write); answers, per record, whether the lease was still held. */
  function record(attemptRecords: readonly AttemptRecord[]): Promise<boolean[]> {
    const send = {};
    const answers = attemptRecords.map(
      (attemptRecord) => new Promise<boolean>((done, failed) => toRecord.push({ record: attemptRecord, done, failed, send })),
    );
    if (!recording) void flush();
    return Promise.all(answers);
  }

  async function flush() {
    recording = true;
    try {
      while (toRecord.length > 0) {
        let size = Math.min(RECORD_BATCH, toRecord.length);
        // Never between the records of one send.
        while (size < toRecord.length && toRecord[size]!.send === toRecord[size - 1]!.send) size++;
        const batch = toRecord.splice(0, size);
        try {
          const kept = await recordAttempts(
            database,
            batch.map((b) => b.record),
            healthTracking,
          );
          for (const b of batch) b.done(kept.has(b.record.delivery.id));
        } catch (err) {
          for (const b of batch) b.failed(err);
        }
      }
    } finally {
      recording = false;
    }
  }

  async function send(delivery: ClaimedDelivery, job: DeliveryJob): Promise<SendResult> {
    const started = performance.now();
    try {
      return await senders[delivery.channelType].send(job);
    } catch (err) {
      // Senders answer outcomes; a throw is a bug, retried like a transient failure.
      logger.error({ err, deliveryId: delivery.id }, 'sender threw');
      return { outcome: 'retry', error: 'internal sender error', durationMs: performance.now() - started };
    }
  }

  async function release(claims: readonly ClaimedDelivery[]) {
    if (claims.length === 0) return;
    try {
      const released = await releaseClaims(database, claims);
      logger.info({ released, claimed: claims.length }, 'released unsent claims back to the queue');
    } catch (err) {
      logger.error({ err, deliveries: claims.length }, 'releasing claims failed; their leases will expire');
    }
  }

  /** Resolves once every outcome queued for recording is written. */
  async function recorded() {
    while (recording || toRecord.length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  function scheduleWake(delayMs: number) {
    if (!running) return;
    const timer = setTimeout(() => {
      retryTimers.delete(timer);
      wake();
    }, delayMs + 5);
    retryTimers.add(timer);
  }

  const detach = opts.handoff?.attach({
    leaseMs,
    reserve(wanted) {
      if (!running || toRecord.length >= RECORD_BATCH) return 0;
      const got = Math.max(0, Math.min(wanted, concurrency - sending - reserved));
      reserved += got;
      return got;
    },
    unreserve(count) {
      reserved -= count;
      if (reserved === 0) reservationsSettled?.();
      slotFreed();
    },
    take(claims) {
      reserved -= claims.length;
      if (reserved === 0) reservationsSettled?.();
      if (running) {
        for (const group of groupForChat(claims)) track(group);
        return;
      }
      // Committed while stopping: given back at once rather than left to the lease.
      const released: Promise<void> = release(claims).finally(() => releasing.delete(released));
      releasing.add(released);
    },
  });
  // A notice naming only deliveries handed to this worker would start a claim that finds nothing.
  const onNotice = opts.handoff ? (payload: string) => void (opts.handoff!.covers(payload) || wake()) : wake;
  const unlisten: Unlisten = await database.listen(DELIVERY_DUE_CHANNEL, onNotice);
  const poll = setInterval(wake, pollMs);
  wake();

  return {
    async stop() {
      running = false;
      detach?.();
      clearInterval(poll);
      for (const timer of retryTimers) clearTimeout(timer);
      await unlisten().catch(() => {});
      await pumping;
      const drainEnd = performance.now() + drainMs;
      // A firing write that reserved slots before the stop commits (its deliveries come here and are
      // released) or rolls back: waited for within the drain time, so no release outlives the stop.
      if (reserved > 0) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          reservationsSettled = resolve;
          timer = setTimeout(resolve, drainMs);
        });
        clearTimeout(timer);
      }
      await Promise.all(releasing);
      let timer: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        Promise.all(inFlight).then(() => true),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, drainEnd - performance.now())))),
      ]);
      clearTimeout(timer);
      if (drained) return;
      // Sends still waiting for an answer are given back; outcomes already answered get recorded.
      await release([...unanswered.values()]);
      await recorded();
    },
  };
}

function disabledError(delivery: ClaimedDelivery, context: SendContext): string {
  return `Channel disabled: ${context.disabledReason}. Re-enable it with POST ${enablePath(context.subscriptionId ?? '{id}', delivery.position)}`;
}

export function buildJob(
  delivery: ClaimedDelivery,
  context: SendContext,
  attempt: number,
  config: Pick<Config, 'PUBLIC_URL' | 'WEBHOOK_SECRET_GRACE_MS'>,
  nowMs = Date.now(),
): DeliveryJob {
  const { payload } = context;
  const slug = typeof payload.polymarketSlug === 'string' ? payload.polymarketSlug : '';
  const marketId = typeof payload.marketId === 'string' ? payload.marketId : undefined;
  // Chat buttons and embeds link to the chart only at an address the reader can open: Telegram
  // refuses the whole message for a button to a host like localhost, and a private one is no use.
  const base = config.PUBLIC_URL;
  return {
    notificationId: delivery.notificationId,
    attempt,
    payload,
    settings: delivery.settings ?? {},
    signingSecret: context.webhookSecret,
    previousSigningSecret: previousSecretInGrace(context, config.WEBHOOK_SECRET_GRACE_MS, nowMs),
    links: {
      venueUrl: `https://polymarket.com/event/${encodeURIComponent(slug)}`,
      ...(marketId && base ? { chartUrl: marketChartUrl(base, marketId) } : {}),
    },
    rule: context.rule ?? null,
    ...(context.outcomeName ? { outcomeName: context.outcomeName } : {}),
  };
}

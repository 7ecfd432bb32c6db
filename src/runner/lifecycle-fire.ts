import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client.js';
import { subscriptionMarketState, subscriptions } from '../db/schema/index.js';
import { DEFAULT_TRIGGER_INTERVAL, TRIGGER_INTERVAL_MS } from '../domain/enums.js';
import { statusColumns, statusOf, transition } from '../domain/subscription-status.js';
import { writeNotificationOnce, type BatchingOptions } from '../delivery/enqueue.js';
import { lifecyclePayload, type StatusPayloadBase } from '../delivery/payloads.js';
import { noticeTargets } from './catalog-effects.js';

// Writes one Resolution or Closing Soon firing of one rule on one market, with the rule semantics
// the price rules have (fire.ts): a paused or expired rule never fires, One Time is spent by its
// firing (`Triggered`), Recurring keeps its minimum interval per market when asked to, and the
// outbox applies snooze, quiet hours and digests.

export interface LifecycleFiring {
  subscriptionId: string;
  marketId: string;
  base: StatusPayloadBase;
  details: Record<string, unknown>;
  detectedAt: Date;
  /** One notification per key: a replay (another engine process, a restart) writes nothing. */
  dedupeKey: string;
  /** Hold a Recurring rule to its minimum interval on this market (Closing Soon); a Resolution reports every status change. */
  holdToInterval: boolean;
}

export type LifecycleOutcome = 'written' | 'duplicate' | 'skipped';

/**
 * In the caller's transaction: the rule is locked and checked again (it may have been paused,
 * deleted or expired since it was matched). `beforeWrite` runs once the rule may fire, in the same
 * transaction (Closing Soon writes its mark there); answering false skips the firing.
 */
export async function writeLifecycleFiring(
  tx: Tx,
  firing: LifecycleFiring,
  batching?: BatchingOptions,
  beforeWrite?: () => Promise<boolean>,
): Promise<LifecycleOutcome> {
  const [sub] = await tx.select().from(subscriptions).where(eq(subscriptions.id, firing.subscriptionId)).for('update');
  if (!sub || (sub.expiresAt && sub.expiresAt.getTime() <= firing.detectedAt.getTime())) return 'skipped';
  const next = transition(statusOf(sub), { kind: 'price fired', triggerType: sub.triggerType });
  if (next.kind !== 'change') return 'skipped';
  if (firing.holdToInterval && sub.triggerType === 'Recurring') {
    const [state] = await tx
      .select({ lastFiredAt: subscriptionMarketState.lastFiredAt })
      .from(subscriptionMarketState)
      .where(and(eq(subscriptionMarketState.subscriptionId, sub.id), eq(subscriptionMarketState.marketId, firing.marketId)));
    const intervalMs = TRIGGER_INTERVAL_MS[sub.triggerInterval ?? DEFAULT_TRIGGER_INTERVAL];
    // A user change (restart, update) after the last firing clears the pause, as for price rules.
    const last = state && (!sub.updatedAt || state.lastFiredAt > sub.updatedAt) ? state.lastFiredAt.getTime() : null;
    if (last !== null && firing.detectedAt.getTime() < last + intervalMs) return 'skipped';
  }
  if (beforeWrite && !(await beforeWrite())) return 'duplicate';
  const { watchlistName, channels } = await noticeTargets(tx, sub);
  const id = await writeNotificationOnce(
    tx,
    {
      accountId: sub.accountId,
      subscriptionId: sub.id,
      type: firing.base.type,
      payload: lifecyclePayload(firing.base, sub, watchlistName, channels, firing.details),
      dedupeKey: firing.dedupeKey,
      channels,
    },
    batching,
  );
  if (id === null) return 'duplicate';
  await tx
    .update(subscriptions)
    .set({ ...statusColumns(next.status), triggerCount: sql`${subscriptions.triggerCount} + 1`, lastTriggeredAt: firing.detectedAt })
    .where(eq(subscriptions.id, sub.id));
  await tx
    .insert(subscriptionMarketState)
    .values({ subscriptionId: sub.id, marketId: firing.marketId, lastFiredAt: firing.detectedAt })
    .onConflictDoUpdate({
      target: [subscriptionMarketState.subscriptionId, subscriptionMarketState.marketId],
      set: { lastFiredAt: firing.detectedAt },
    });
  return 'written';
}

/** `writeLifecycleFiring` in a transaction of its own. */
export function fireLifecycle(db: Db, firing: LifecycleFiring, batching?: BatchingOptions, beforeWrite?: (tx: Tx) => Promise<boolean>) {
  return db.transaction((tx) => writeLifecycleFiring(tx, firing, batching, beforeWrite && (() => beforeWrite(tx))));
}

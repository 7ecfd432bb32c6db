import { and, asc, eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { subscriptionChannels, subscriptions } from '../../db/schema/index.js';
import { describeEndpoint } from '../../delivery/health-notice.js';
import type { ChannelType } from '../../domain/enums.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { parseInput } from '../validate.js';
import { requireOwnedSubscription, SUBSCRIPTION_NOT_FOUND } from './owned.js';
import { ChannelPositionInput, SubscriptionIdInput } from './schemas.js';

// Endpoint health as the account reads and resets it (docs/delivery.md "Endpoint health"). The
// spec's channel statuses are a closed set, so the disabled state is shown here, not there.

export type ChannelHealthState = 'healthy' | 'failing' | 'disabled';

export interface ChannelHealthView {
  position: number;
  type: ChannelType;
  /** The channel without its secrets: a webhook's origin, or the type and position. */
  endpoint: string;
  state: ChannelHealthState;
  failingSince: string | null;
  failedNotifications: number;
  lastError: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
}

type ChannelRow = typeof subscriptionChannels.$inferSelect;

function toView(row: ChannelRow): ChannelHealthView {
  return {
    position: row.position,
    type: row.type,
    endpoint: describeEndpoint(row.type, row.settings, row.position),
    state: row.disabledAt ? 'disabled' : row.failingSince ? 'failing' : 'healthy',
    failingSince: row.failingSince?.toISOString() ?? null,
    failedNotifications: row.failedNotifications,
    lastError: row.lastError,
    disabledAt: row.disabledAt?.toISOString() ?? null,
    disabledReason: row.disabledReason,
  };
}

async function channelsOf(on: Queryable, subscriptionId: string): Promise<ChannelRow[]> {
  return on
    .select()
    .from(subscriptionChannels)
    .where(eq(subscriptionChannels.subscriptionId, subscriptionId))
    .orderBy(asc(subscriptionChannels.position));
}

/** Every channel of one of the caller's subscriptions with its health. */
export async function getChannelHealth({ ctx, input }: { ctx: ServiceContext; input: unknown }): Promise<ChannelHealthView[]> {
  const { subscriptionId } = parseInput(SubscriptionIdInput, input);
  const { db } = ctx.database;
  const [owned] = await db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(and(eq(subscriptions.id, subscriptionId), eq(subscriptions.accountId, ctx.account.id)));
  if (!owned) throw notFound(SUBSCRIPTION_NOT_FOUND, 'subscription');
  return (await channelsOf(db, subscriptionId)).map(toView);
}

/**
 * Turns a disabled (or failing) channel back on with a clean record: the next firing is sent, and
 * the span starts again from its first failure.
 */
export async function enableChannel({ ctx, input }: { ctx: ServiceContext; input: unknown }): Promise<ChannelHealthView> {
  const { subscriptionId, position } = parseInput(ChannelPositionInput, input);
  return withTransaction(ctx, async (tx) => {
    await requireOwnedSubscription(tx, ctx.account.id, subscriptionId);
    const [row] = await tx
      .update(subscriptionChannels)
      .set({ disabledAt: null, disabledReason: null, failingSince: null, failedNotifications: 0, warnedAt: null, lastError: null })
      .where(and(eq(subscriptionChannels.subscriptionId, subscriptionId), eq(subscriptionChannels.position, position)))
      .returning();
    if (!row) throw notFound(`The subscription has no channel at position ${position} (positions start at 0)`, 'channel');
    ctx.logger.info({ subscriptionId, position }, 'channel re-enabled');
    return toView(row);
  });
}

import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { subscriptions } from '../../db/schema/index.js';
import { notFound } from '../errors.js';

export const SUBSCRIPTION_NOT_FOUND = 'Subscription not found';

export async function requireOwnedSubscription(on: Queryable, accountId: string, subscriptionId: string) {
  const [row] = await on
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.id, subscriptionId), eq(subscriptions.accountId, accountId)))
    .for('update');
  if (!row) throw notFound(SUBSCRIPTION_NOT_FOUND, 'subscription');
  return row;
}

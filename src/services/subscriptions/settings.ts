import { inArray } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { subscriptionPreferences } from '../../db/schema/index.js';
import { getAccountPreferences } from '../accounts/preferences.js';
import { dbOf, type ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { parseInput } from '../validate.js';
import { SUBSCRIPTION_NOT_FOUND } from './owned.js';
import { DEFAULT_PREFERENCES, toPreferencesView, type PreferencesView } from './preferences.js';
import { SubscriptionIdInput } from './schemas.js';
import { loadSubscriptionViews, type SubscriptionView } from './view.js';

// The chat's view of alerts: each subscription beside its noise-control preferences, and the
// account's time zone to say times in. REST keeps them in separate resources (the spec fixes the
// subscription's properties); a person reading `/alerts` wants them on one line.

export interface AlertSettings {
  subscription: SubscriptionView;
  preferences: PreferencesView;
}

async function preferencesOf(on: Queryable, subscriptionIds: readonly string[]): Promise<Map<string, PreferencesView>> {
  const nowMs = Date.now();
  const rows =
    subscriptionIds.length === 0
      ? []
      : await on.select().from(subscriptionPreferences).where(inArray(subscriptionPreferences.subscriptionId, [...subscriptionIds]));
  const stored = new Map(rows.map((r) => [r.subscriptionId, r]));
  return new Map(subscriptionIds.map((id) => [id, toPreferencesView(stored.get(id) ?? DEFAULT_PREFERENCES, nowMs)]));
}

/** All of the caller's subscriptions (newest first, as `listSubscriptions`) with their preferences. */
export async function listAlertSettings({ ctx }: { ctx: ServiceContext }): Promise<{ timezone: string; alerts: AlertSettings[] }> {
  const db = dbOf(ctx);
  const views = await loadSubscriptionViews(db, { accountId: ctx.account.id });
  const preferences = await preferencesOf(
    db,
    views.map((v) => v.subscriptionId),
  );
  const { timezone } = await getAccountPreferences({ ctx });
  return { timezone, alerts: views.map((subscription) => ({ subscription, preferences: preferences.get(subscription.subscriptionId)! })) };
}

/** One of the caller's subscriptions with its preferences; another account's is not found. */
export async function getAlertSettings({ ctx, input }: { ctx: ServiceContext; input: SubscriptionIdInput }): Promise<AlertSettings & { timezone: string }> {
  const { subscriptionId } = parseInput(SubscriptionIdInput, input);
  const db = dbOf(ctx);
  const [subscription] = await loadSubscriptionViews(db, { accountId: ctx.account.id, subscriptionId });
  if (!subscription) throw notFound(SUBSCRIPTION_NOT_FOUND, 'subscription');
  const preferences = (await preferencesOf(db, [subscriptionId])).get(subscriptionId)!;
  const { timezone } = await getAccountPreferences({ ctx });
  return { subscription, preferences, timezone };
}

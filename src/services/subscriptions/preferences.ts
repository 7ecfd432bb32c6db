import { eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { subscriptionPreferences } from '../../db/schema/index.js';
import type { DeliveryMode } from '../../domain/enums.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { parseInput } from '../validate.js';
import { announceSubscriptionChange } from '../watchlists/changes.js';
import { requireOwnedSubscription } from './owned.js';
import { PreferencesInput, SNOOZE_SPANS_MS, SnoozeInput } from './preferences-schemas.js';
import { SubscriptionIdInput } from './schemas.js';

/** A subscription's noise-control preferences as REST and the bots show them. */
export interface PreferencesView {
  /** Null when not snoozed, including once a snooze has run out. */
  snoozedUntil: string | null;
  delivery: DeliveryMode;
  rearmPoints: number;
}

type Stored = { snoozedUntil: Date | null; delivery: DeliveryMode; rearmPoints: number };
const DEFAULTS: Stored = { snoozedUntil: null, delivery: 'instant', rearmPoints: 0 };

function toView(stored: Stored, nowMs: number): PreferencesView {
  const until = stored.snoozedUntil;
  return {
    snoozedUntil: until && until.getTime() > nowMs ? until.toISOString() : null,
    delivery: stored.delivery,
    rearmPoints: stored.rearmPoints,
  };
}

async function loadStored(on: Queryable, subscriptionId: string): Promise<Stored> {
  const [row] = await on
    .select({ snoozedUntil: subscriptionPreferences.snoozedUntil, delivery: subscriptionPreferences.delivery, rearmPoints: subscriptionPreferences.rearmPoints })
    .from(subscriptionPreferences)
    .where(eq(subscriptionPreferences.subscriptionId, subscriptionId));
  return row ?? DEFAULTS;
}

async function store(on: Queryable, subscriptionId: string, next: Stored): Promise<void> {
  const values = { ...next, updatedAt: new Date() };
  await on
    .insert(subscriptionPreferences)
    .values({ subscriptionId, ...values })
    .onConflictDoUpdate({ target: subscriptionPreferences.subscriptionId, set: values });
}

/** Reads or changes the stored preferences of one of the caller's subscriptions, in one transaction. */
async function change(
  ctx: ServiceContext,
  input: SubscriptionIdInput,
  edit: (stored: Stored) => Stored | null,
): Promise<PreferencesView> {
  const { subscriptionId } = parseInput(SubscriptionIdInput, input);
  return withTransaction(ctx, async (tx) => {
    await requireOwnedSubscription(tx, ctx.account.id, subscriptionId);
    const stored = await loadStored(tx, subscriptionId);
    const next = edit(stored);
    if (next) await store(tx, subscriptionId, next);
    // The engine applies the re-arm band: it reloads the subscription's rules on commit.
    if (next && next.rearmPoints !== stored.rearmPoints) await announceSubscriptionChange(tx, subscriptionId);
    return toView(next ?? stored, Date.now());
  });
}

/** `GET /subscription/{id}/preferences`: the defaults when none were set. */
export function getPreferences({ ctx, input }: { ctx: ServiceContext; input: SubscriptionIdInput }): Promise<PreferencesView> {
  return change(ctx, input, () => null);
}

/** `PUT /subscription/{id}/preferences`: replaces the whole object; a field left out takes its default. */
export function putPreferences({ ctx, input }: { ctx: ServiceContext; input: SubscriptionIdInput & { body: PreferencesInput } }): Promise<PreferencesView> {
  parseInput(SubscriptionIdInput, input); // a bad id is named before the body
  const body = parseInput(PreferencesInput, input.body);
  return change(ctx, input, () => ({
    snoozedUntil: body.snoozedUntil ?? null,
    delivery: body.delivery ?? DEFAULTS.delivery,
    rearmPoints: body.rearmPoints ?? DEFAULTS.rearmPoints,
  }));
}

/** Snoozes for a span from now or until a given time; the other preferences stay. */
export function snoozeSubscription({ ctx, input }: { ctx: ServiceContext; input: SubscriptionIdInput & { body: SnoozeInput } }): Promise<PreferencesView> {
  parseInput(SubscriptionIdInput, input); // a bad id is named before the body
  const body = parseInput(SnoozeInput, input.body);
  const until = body.until ?? new Date(Date.now() + SNOOZE_SPANS_MS[body.for!]);
  return change(ctx, input, (stored) => ({ ...stored, snoozedUntil: until }));
}

/** Ends a snooze now: the next firing goes to every channel again. */
export function unsnoozeSubscription({ ctx, input }: { ctx: ServiceContext; input: SubscriptionIdInput }): Promise<PreferencesView> {
  return change(ctx, input, (stored) => ({ ...stored, snoozedUntil: null }));
}

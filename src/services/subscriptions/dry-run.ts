import { and, asc, gte, inArray, lte, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { priceSamples } from '../../db/schema/index.js';
import { PRICE_RULE_TYPES, TRIGGER_INTERVAL_MS, DEFAULT_TRIGGER_INTERVAL, type SubscriptionScope } from '../../domain/enums.js';
import { PRICE_SAMPLE_RETENTION_MS } from '../../runner/price-samples.js';
import { replayRule, type PricePoint } from '../../engine/replay.js';
import { thresholdFraction } from '../../engine/rules.js';
import { dbOf, withTransaction, type ServiceContext } from '../context.js';
import { notFound, validationError } from '../errors.js';
import { parseInput } from '../validate.js';
import { requireOwnedWatchlist } from '../watchlists/owned.js';
import { checkChannels } from './channels.js';
import { SUBSCRIPTION_NOT_FOUND } from './owned.js';
import { CreateSubscriptionInput, isPriceTypeConfig, SubscriptionIdInput } from './schemas.js';
import { loadSubscriptionViews } from './view.js';
import { resolveTarget } from './targets.js';

/** Most firings listed; `count` still counts them all. */
export const DRY_RUN_MAX_LISTED = 1000;

export interface DryRunFiring {
  at: string;
  price: number;
  /** The threshold crossed or held; for Crossing Step the last level crossed. */
  level: number;
  /** Crossing Step: every level crossed by this move, in crossing order. */
  levels?: number[];
  /** Present when the scope covers several markets. */
  marketId?: string;
}

export interface DryRunResult {
  firings: DryRunFiring[];
  count: number;
  from: string;
  to: string;
}

export const DRY_RUN_PRICE_RULES_ONLY = `A dry run covers the price rules only (${PRICE_RULE_TYPES.join(', ')}): the other types fire on catalog changes, trades or volume, which have no recorded history to replay`;

/**
 * How a subscription with this body would have fired over the last 7 days of recorded prices.
 * The body is checked exactly as `createSubscription` checks it, and nothing is stored.
 */
export async function dryRunSubscription({ ctx, input }: { ctx: ServiceContext; input: CreateSubscriptionInput }): Promise<DryRunResult> {
  return (await replay(ctx, input)).result;
}

/**
 * How many times a stored subscription would have fired over the last 7 days, or null when none
 * of its markets has a recorded price in that window (a count of 0 would then claim too much).
 */
export async function countRecentFirings({ ctx, input }: { ctx: ServiceContext; input: unknown }): Promise<number | null> {
  const { subscriptionId } = parseInput(SubscriptionIdInput, input);
  const [view] = await loadSubscriptionViews(dbOf(ctx), { accountId: ctx.account.id, subscriptionId });
  if (!view) throw notFound(SUBSCRIPTION_NOT_FOUND, 'subscription');
  const { result, samples } = await replay(ctx, {
    watchlistId: view.watchlistId,
    subscriptionScope: view.subscriptionScope,
    ...(view.eventId ? { eventId: view.eventId } : {}),
    ...(view.marketId ? { marketId: view.marketId } : {}),
    subscriptionTypeConfig: view.subscriptionTypeConfig,
    triggerType: view.triggerType,
    ...(view.triggerInterval ? { triggerInterval: view.triggerInterval } : {}),
    // Where it delivers changes nothing in a replay, and the stored channels were checked when saved
    // (a bot's DM channel is not even a REST channel): any valid channel stands in for them.
    channels: [{ type: 'In App' }],
  } as CreateSubscriptionInput);
  return samples === 0 ? null : result.count;
}

async function replay(ctx: ServiceContext, input: CreateSubscriptionInput): Promise<{ result: DryRunResult; samples: number }> {
  const body = parseInput(CreateSubscriptionInput, input);
  const typeConfig = body.subscriptionTypeConfig;
  if (!isPriceTypeConfig(typeConfig)) throw validationError(`subscriptionTypeConfig.type: ${DRY_RUN_PRICE_RULES_ONLY}`);
  await checkChannels(ctx, body.channels);
  const markets = await withTransaction(ctx, async (tx) => {
    await requireOwnedWatchlist(tx, ctx.account.id, body.watchlistId);
    const target = await resolveTarget(tx, body.watchlistId, body.subscriptionScope, body.eventId, body.marketId);
    return scopeMarkets(ctx, tx, body.subscriptionScope, body.watchlistId, target);
  });

  const toMs = Date.now();
  const fromMs = toMs - PRICE_SAMPLE_RETENTION_MS;
  const path = await loadPath(dbOf(ctx), markets.map((m) => m.token), fromMs, toMs);
  const oneTime = body.triggerType === 'One Time';
  const threshold = thresholdFraction(typeConfig.config.params.threshold_percent);
  const firings = replayRule(
    {
      type: typeConfig.type,
      threshold,
      oneTime,
      intervalMs: oneTime ? 0 : TRIGGER_INTERVAL_MS[body.triggerInterval ?? DEFAULT_TRIGGER_INTERVAL],
      markets,
    },
    path,
    fromMs,
    toMs,
  );
  const several = markets.length > 1;
  const result = {
    firings: firings.slice(0, DRY_RUN_MAX_LISTED).map((f) => ({
      at: new Date(f.atMs).toISOString(),
      price: f.price,
      level: f.levels ? f.levels[f.levels.length - 1]! : threshold,
      ...(f.levels ? { levels: [...f.levels] } : {}),
      ...(several ? { marketId: f.marketId } : {}),
    })),
    count: firings.length,
    from: new Date(fromMs).toISOString(),
    to: new Date(toMs).toISOString(),
  };
  return { result, samples: path.length };
}

/**
 * The open markets (with a Yes token) a subscription of this scope follows: the same expansion as
 * the engine's `expandPriceRules`, for a rule that is not stored.
 */
async function scopeMarkets(
  ctx: ServiceContext,
  on: Queryable,
  scope: SubscriptionScope,
  watchlistId: string,
  target: { eventId: string | null; marketId: string | null },
): Promise<{ marketId: string; token: string }[]> {
  const which =
    scope === 'Market'
      ? sql`m.id = ${target.marketId}`
      : scope === 'Event'
        ? sql`m.event_id = ${target.eventId}`
        : sql`m.id in (select market_id from watchlist_markets where watchlist_id = ${watchlistId})`;
  const rows = await ctx.database.rows<{ market_id: string; token: string }>(
    sql`select m.id as market_id, m.yes_token_id as token from catalog_markets m
        where ${which} and not m.closed and m.yes_token_id <> '' order by m.id`,
    on,
  );
  return rows.map((r) => ({ marketId: r.market_id, token: r.token }));
}

async function loadPath(on: Queryable, tokens: string[], fromMs: number, toMs: number): Promise<PricePoint[]> {
  const path: PricePoint[] = [];
  for (let i = 0; i < tokens.length; i += 500) {
    const rows = await on
      .select({ token: priceSamples.tokenId, minute: priceSamples.minute, price: priceSamples.price })
      .from(priceSamples)
      .where(and(inArray(priceSamples.tokenId, tokens.slice(i, i + 500)), gte(priceSamples.minute, new Date(fromMs)), lte(priceSamples.minute, new Date(toMs))))
      .orderBy(asc(priceSamples.minute), asc(priceSamples.tokenId));
    for (const r of rows) path.push({ token: r.token, atMs: r.minute.getTime(), price: r.price });
  }
  return path;
}

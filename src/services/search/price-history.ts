import { and, asc, eq, gte } from 'drizzle-orm';
import { z } from 'zod';
import { catalogMarkets, priceSamples, tokenPrices } from '../../db/schema/index.js';
import { MINUTE_MS, PRICE_SAMPLE_RETENTION_MS } from '../../runner/price-samples.js';
import { dbOf, type ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { Id } from '../schemas.js';
import { displayedNow } from './current-prices.js';
import { parseInput } from '../validate.js';

// As far back as samples are kept.
const WEEK_MINUTES = PRICE_SAMPLE_RETENTION_MS / MINUTE_MS;

export const PriceHistoryInput = z.object({
  marketId: Id,
  minutes: z.coerce
    .number({ error: 'minutes must be a whole number of minutes' })
    .int('minutes must be a whole number of minutes')
    .min(1, 'minutes must be at least 1')
    .max(WEEK_MINUTES, `minutes is at most ${WEEK_MINUTES} (samples are kept 7 days)`)
    .default(60),
});
export type PriceHistoryInput = z.input<typeof PriceHistoryInput>;

export interface PriceHistory {
  marketId: string;
  question: string;
  /** The first outcome's displayed price now: the engine's last one, else the catalog's. */
  current: number | null;
  /** The displayed price at the end of each sampled minute, oldest first. */
  points: { at: Date; price: number }[];
}

/** A market's recent displayed prices, from the engine's per-minute samples (what rules fire on). */
export async function marketPriceHistory({
  ctx,
  input,
  now = new Date(),
}: {
  ctx: Pick<ServiceContext, 'database' | 'tx'>;
  input: PriceHistoryInput;
  now?: Date;
}): Promise<PriceHistory> {
  const { marketId, minutes } = parseInput(PriceHistoryInput, input);
  const db = dbOf(ctx);
  const [market] = await db
    .select({ question: catalogMarkets.question, tokenId: catalogMarkets.yesTokenId, live: tokenPrices.price, prices: catalogMarkets.outcomePrices })
    .from(catalogMarkets)
    .leftJoin(tokenPrices, eq(tokenPrices.tokenId, catalogMarkets.yesTokenId))
    .where(eq(catalogMarkets.id, marketId));
  if (!market) throw notFound('Market not found', 'market');
  const since = new Date(now.getTime() - minutes * MINUTE_MS);
  const points = await db
    .select({ at: priceSamples.minute, price: priceSamples.price })
    .from(priceSamples)
    .where(and(eq(priceSamples.tokenId, market.tokenId), gte(priceSamples.minute, since)))
    .orderBy(asc(priceSamples.minute));
  return { marketId, question: market.question, current: displayedNow(market.live, market.prices), points };
}

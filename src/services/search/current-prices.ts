import { eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { catalogMarkets, tokenPrices } from '../../db/schema/index.js';
import { dbOf, type ServiceContext } from '../context.js';
import { isSafeText } from '../schemas.js';
import { parseInput } from '../validate.js';

const MAX_MARKETS = 100;

export const CurrentPricesInput = z.object({
  ids: z
    .string({ error: 'ids: give market ids, comma separated' })
    .transform((s) => [...new Set(s.split(',').map((id) => id.trim()).filter(Boolean))])
    .pipe(
      z
        .array(z.string().max(200, 'a market id is at most 200 characters').refine(isSafeText, 'a market id must be plain text'))
        .min(1, 'ids: give at least one market id')
        .max(MAX_MARKETS, `ids: at most ${MAX_MARKETS} markets`),
    ),
});
export type CurrentPricesInput = z.input<typeof CurrentPricesInput>;

export interface CurrentPrice {
  marketId: string;
  question: string;
  /** The engine's last displayed price when it watches the market, else the catalog's. */
  current: number | null;
}

/** A market's displayed price now: the engine's last one when it watches the market, else the catalog's. */
export const displayedNow = (live: number | null, catalogPrices: readonly number[]): number | null => live ?? catalogPrices[0] ?? null;

/** The displayed price now of several markets at once (a console page polls this); unknown ids are left out. */
export async function currentPrices({ ctx, input }: { ctx: Pick<ServiceContext, 'database' | 'tx'>; input: CurrentPricesInput }): Promise<CurrentPrice[]> {
  const { ids } = parseInput(CurrentPricesInput, input);
  const rows = await dbOf(ctx)
    .select({ marketId: catalogMarkets.id, question: catalogMarkets.question, live: tokenPrices.price, catalog: catalogMarkets.outcomePrices })
    .from(catalogMarkets)
    .leftJoin(tokenPrices, eq(tokenPrices.tokenId, catalogMarkets.yesTokenId))
    .where(inArray(catalogMarkets.id, ids));
  return rows.map((r) => ({ marketId: r.marketId, question: r.question, current: displayedNow(r.live, r.catalog) }));
}

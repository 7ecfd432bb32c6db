import { and, asc, eq, gte } from 'drizzle-orm';
import { catalogMarkets, marketSamples } from '../../db/schema/index.js';
import { dbOf, type ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { parseInput } from '../validate.js';
import { ChartInput } from './schemas.js';

const DAY_MS = 86_400_000;
const WIDTH = 120;
const HEIGHT = 40;

/** The last 24 h of a market's sampled price as a small SVG sparkline (prices 0..1 bottom to top). */
export async function marketChartSvg({
  ctx,
  input,
  now = new Date(),
}: {
  ctx: Omit<ServiceContext, 'account' | 'apiTokenId'>;
  input: ChartInput;
  now?: Date;
}): Promise<string> {
  const { marketId } = parseInput(ChartInput, input);
  const db = dbOf(ctx);
  const [market] = await db
    .select({ prices: catalogMarkets.outcomePrices })
    .from(catalogMarkets)
    .where(eq(catalogMarkets.id, marketId));
  if (!market) throw notFound('Market not found', 'market');
  const since = new Date(now.getTime() - DAY_MS);
  const samples = await db
    .select({ at: marketSamples.at, price: marketSamples.price })
    .from(marketSamples)
    .where(and(eq(marketSamples.marketId, marketId), gte(marketSamples.at, since)))
    .orderBy(asc(marketSamples.at));
  const points = samples.filter((s) => s.price !== null).map((s) => ({ t: s.at.getTime(), p: s.price! }));
  if (points.length === 0) points.push({ t: since.getTime(), p: market.prices[0] ?? 0 });
  if (points.length === 1) points.push({ t: now.getTime(), p: points[0]!.p });
  return sparkline(points, since.getTime(), now.getTime());
}

export function sparkline(points: { t: number; p: number }[], from: number, to: number): string {
  const span = Math.max(1, to - from);
  const xy = points
    .map(({ t, p }) => {
      const x = ((Math.min(Math.max(t, from), to) - from) / span) * WIDTH;
      const y = HEIGHT - Math.min(Math.max(p, 0), 1) * HEIGHT;
      return `${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">` +
    `<polyline fill="none" stroke="#2563eb" stroke-width="1.5" points="${xy}"/></svg>`
  );
}

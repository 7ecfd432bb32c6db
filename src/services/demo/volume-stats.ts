import { asc, eq } from 'drizzle-orm';
import { SAMPLE_RETENTION_MS } from '../../catalog/refresh.js';
import { catalogMarkets, marketSamples } from '../../db/schema/index.js';
import { dbOf, type ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { parseInput } from '../validate.js';
import { VolumeStatsInput } from './schemas.js';

const HOUR_MS = 3_600_000;
export const VOLUME_WINDOWS = { '1h': 1, '4h': 4, '12h': 12, '24h': 24 } as const;
type WindowName = keyof typeof VOLUME_WINDOWS;

export interface WindowStats {
  volume: number;
  datapoints: number;
  startVolume: number | null;
  endVolume: number | null;
}

interface Sample {
  at: Date;
  volume: number | null;
  liquidity: number | null;
}

const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : a / b);

/** A window's volume is its last sample minus its first (the series is cumulative; FORMATS.md §5). */
export function windowStats(samples: Sample[], fromMs: number): WindowStats {
  const inside = samples.filter((s) => s.at.getTime() >= fromMs && s.volume !== null);
  const startVolume = inside[0]?.volume ?? null;
  const endVolume = inside.at(-1)?.volume ?? null;
  const volume = startVolume === null || endVolume === null ? 0 : endVolume - startVolume;
  return { volume, datapoints: inside.length, startVolume, endVolume };
}

export async function getVolumeStats({ ctx, input, now = new Date() }: { ctx: ServiceContext; input: VolumeStatsInput; now?: Date }) {
  const { marketId } = parseInput(VolumeStatsInput, input);
  const db = dbOf(ctx);
  const [market] = await db.select({ id: catalogMarkets.id }).from(catalogMarkets).where(eq(catalogMarkets.id, marketId));
  if (!market) throw notFound('Market not found', 'market');
  const stored = await db
    .select({ at: marketSamples.at, volume: marketSamples.volume, liquidity: marketSamples.liquidity })
    .from(marketSamples)
    .where(eq(marketSamples.marketId, marketId))
    .orderBy(asc(marketSamples.at));
  // The retention before the latest sample: old samples go a day at a time, so a day not wholly
  // past it may still hold older ones. With the sync stopped the last 48 h it sampled still show;
  // a sample from a clock that ran ahead does not hide the rest.
  const since = Math.min(stored.at(-1)?.at.getTime() ?? 0, now.getTime()) - SAMPLE_RETENTION_MS;
  const samples = stored.filter((s) => s.at.getTime() >= since);
  const windows = Object.fromEntries(
    (Object.keys(VOLUME_WINDOWS) as WindowName[]).map((w) => [w, windowStats(samples, now.getTime() - VOLUME_WINDOWS[w] * HOUR_MS)]),
  ) as Record<WindowName, WindowStats>;
  const totalVolume = samples.findLast((s) => s.volume !== null)?.volume ?? null;
  const latestLiquidity = samples.findLast((s) => s.liquidity !== null)?.liquidity ?? null;
  const volume24h = windows['24h'].datapoints > 0 ? windows['24h'].volume : null;
  return {
    marketId,
    totalVolume,
    latestLiquidity,
    windows,
    liquidityToVolumeRatio: ratio(latestLiquidity, volume24h),
    turnoverRatio: ratio(volume24h, latestLiquidity),
    datapoints: samples.length,
  };
}

import type { catalogEvents, catalogMarkets } from '../db/schema/index.js';
import type { VenueEvent, VenueMarket } from '../venue/gamma/types.js';

const date = (v: string | null) => {
  if (!v) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
};

export function eventRow(e: VenueEvent, now: Date): typeof catalogEvents.$inferInsert {
  // The venue event's scalar fields are the table's columns by name (src/venue/gamma/types.ts
  // decides them once); only the dates change type here, and tags and markets have tables of their own.
  const { tags: _tags, markets: _markets, startDate, endDate, ...columns } = e;
  return {
    ...columns,
    startDate: date(startDate),
    endDate: date(endDate),
    updatedAt: now,
    ...(e.closed ? { closedAt: now } : {}),
  };
}

export function marketRow(m: VenueMarket, eventId: string, position: number, now: Date): typeof catalogMarkets.$inferInsert {
  return {
    id: m.id,
    eventId,
    position,
    question: m.question,
    slug: m.slug,
    groupItemTitle: m.groupItemTitle,
    conditionId: m.conditionId,
    outcomes: m.outcomes,
    outcomePrices: m.outcomePrices,
    clobTokenIds: m.clobTokenIds,
    yesTokenId: m.clobTokenIds[0] ?? '',
    image: m.image,
    active: m.active,
    closed: m.closed,
    archived: m.archived,
    volume: m.volume,
    volume24hr: m.volume24hr,
    liquidity: m.liquidity,
    bestBid: m.bestBid,
    bestAsk: m.bestAsk,
    lastTradePrice: m.lastTradePrice,
    endDate: date(m.endDate),
    umaResolutionStatus: m.umaResolutionStatus,
    resolvedOutcome: resolvedOutcome(m),
    updatedAt: now,
    ...(m.closed ? { closedAt: now } : {}),
  };
}

/**
 * The winning outcome of a resolved market: the venue's prices become the payout then, 1 for the
 * winner and 0 for the others. Null before resolution, or when the prices name no single winner.
 */
export function resolvedOutcome(m: Pick<VenueMarket, 'umaResolutionStatus' | 'outcomes' | 'outcomePrices'>): string | null {
  if (m.umaResolutionStatus !== 'resolved' || m.outcomePrices.length !== m.outcomes.length) return null;
  const winners = m.outcomes.filter((_, i) => m.outcomePrices[i] === 1);
  const losers = m.outcomePrices.filter((p) => p === 0).length;
  return winners.length === 1 && losers === m.outcomes.length - 1 ? winners[0]! : null;
}

/** Splits rows into batches that stay well under PostgreSQL's bind-parameter limit. */
export function chunks<T>(items: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

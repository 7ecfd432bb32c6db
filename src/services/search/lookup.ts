import { eq, or } from 'drizzle-orm';
import { catalogEvents, catalogMarkets } from '../../db/schema/index.js';
import { dbOf, type ServiceContext } from '../context.js';
import { notFound, validationError } from '../errors.js';
import { isSafeText } from '../schemas.js';

type PublicContext = Pick<ServiceContext, 'database' | 'tx'>;

export interface EventRef {
  id: string;
  slug: string;
  title: string;
}

/** The slug inside `https://polymarket.com/event/<slug>[/...]`, or the reference as given. */
export function eventRefKey(ref: string): string {
  const trimmed = ref.trim();
  const link = /^https?:\/\/(?:www\.)?polymarket\.com\/event\/([^/?#\s]+)/i.exec(trimmed);
  if (!link) return trimmed;
  try {
    return decodeURIComponent(link[1]!);
  } catch {
    return link[1]!; // a stray % is part of no slug; the lookup answers not found
  }
}

/** A catalog event by its Polymarket link, slug or id. */
export async function findEvent({ ctx, input }: { ctx: PublicContext; input: { ref: string } }): Promise<EventRef> {
  const key = eventRefKey(input.ref);
  if (key === '' || key.length > 300 || !isSafeText(key)) throw validationError('Give an event link, slug or id');
  const [row] = await dbOf(ctx)
    .select({ id: catalogEvents.id, slug: catalogEvents.slug, title: catalogEvents.title })
    .from(catalogEvents)
    .where(or(eq(catalogEvents.id, key), eq(catalogEvents.slug, key)))
    .limit(1);
  if (!row) throw notFound(`No event ${key}`, 'event');
  return row;
}

export interface MarketRef {
  id: string;
  question: string;
  eventId: string;
  eventTitle: string;
  outcomes: string[];
  outcomePrices: number[];
  /** When the market (or else its event) ends, ISO 8601; null when the venue gives no date. */
  endDate: string | null;
}

/** A catalog market with the event it belongs to. */
export async function findMarket({ ctx, input }: { ctx: PublicContext; input: { marketId: string } }): Promise<MarketRef> {
  const marketId = input.marketId.trim();
  if (marketId === '' || marketId.length > 200 || !isSafeText(marketId)) throw validationError('Give a market id');
  const [row] = await dbOf(ctx)
    .select({
      id: catalogMarkets.id,
      question: catalogMarkets.question,
      eventId: catalogMarkets.eventId,
      eventTitle: catalogEvents.title,
      outcomes: catalogMarkets.outcomes,
      outcomePrices: catalogMarkets.outcomePrices,
      endDate: catalogMarkets.endDate,
      eventEndDate: catalogEvents.endDate,
    })
    .from(catalogMarkets)
    .innerJoin(catalogEvents, eq(catalogEvents.id, catalogMarkets.eventId))
    .where(eq(catalogMarkets.id, marketId));
  if (!row) throw notFound(`No market ${marketId}`, 'market');
  const { endDate, eventEndDate, ...market } = row;
  const ends = endDate ?? eventEndDate;
  return { ...market, endDate: ends ? new Date(ends).toISOString() : null };
}

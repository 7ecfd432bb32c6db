import { asc, eq, or } from 'drizzle-orm';
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
  /** The venue's last trade price (0..1), or null before any trade. */
  lastTradePrice: number | null;
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
      lastTradePrice: catalogMarkets.lastTradePrice,
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

/** What a market reference names: a market id or slug, or an event slug with perhaps a market slug. */
type MarketKey = { kind: 'market'; key: string } | { kind: 'event'; eventSlug: string; marketSlug?: string };

const decoded = (part: string) => {
  try {
    return decodeURIComponent(part);
  } catch {
    return part; // a stray % is part of no slug; the lookup answers not found
  }
};

/**
 * `https://polymarket.com/event/<event>[/<market>]`, `https://polymarket.com/market/<market>`, or the
 * reference as given (a market id or a market slug). See venue/FORMATS.md for the page links.
 */
export function marketRefKey(ref: string): MarketKey {
  const trimmed = ref.trim();
  const link = /^https?:\/\/(?:www\.)?polymarket\.com\/(event|market)\/([^/?#\s]+)(?:\/([^/?#\s]+))?/i.exec(trimmed);
  if (!link) return { kind: 'market', key: trimmed };
  if (link[1]!.toLowerCase() === 'market') return { kind: 'market', key: decoded(link[2]!) };
  return { kind: 'event', eventSlug: decoded(link[2]!), ...(link[3] ? { marketSlug: decoded(link[3]) } : {}) };
}

/**
 * A catalog market's id from its id, slug or venue link. An event link names a market only when
 * the event has one market, or when the link ends in the market's slug.
 */
export async function findMarketId({ ctx, input }: { ctx: PublicContext; input: { ref: string } }): Promise<string> {
  const ref = marketRefKey(input.ref);
  const keys = ref.kind === 'market' ? [ref.key] : [ref.eventSlug, ref.marketSlug ?? ''];
  if (keys[0] === '' || keys.some((k) => k.length > 300 || !isSafeText(k))) throw validationError('Give a market id, slug or link');
  const db = dbOf(ctx);
  if (ref.kind === 'market') {
    const [row] = await db
      .select({ id: catalogMarkets.id })
      .from(catalogMarkets)
      .where(or(eq(catalogMarkets.id, ref.key), eq(catalogMarkets.slug, ref.key)))
      .orderBy(asc(catalogMarkets.id))
      .limit(1);
    if (!row) throw notFound(`No market ${ref.key}`, 'market');
    return row.id;
  }
  const markets = await db
    .select({ id: catalogMarkets.id, slug: catalogMarkets.slug })
    .from(catalogMarkets)
    .innerJoin(catalogEvents, eq(catalogEvents.id, catalogMarkets.eventId))
    .where(eq(catalogEvents.slug, ref.eventSlug))
    .orderBy(asc(catalogMarkets.position), asc(catalogMarkets.id));
  const named = ref.marketSlug ? markets.filter((m) => m.slug === ref.marketSlug) : markets;
  if (named.length === 1) return named[0]!.id;
  if (named.length === 0) throw notFound(`No market ${ref.marketSlug ?? ref.eventSlug}`, 'market');
  throw validationError(`That event has ${named.length} markets: search for it and tap Alert under one`);
}

import {
  GammaEventSchema,
  GammaMarketSchema,
  GammaTagSchema,
  type GammaMarket,
} from './schemas.js';

export interface VenueTag {
  id: string;
  label: string;
  slug: string;
}

export interface VenueMarket {
  id: string;
  eventId?: string;
  question: string;
  slug: string;
  groupItemTitle: string;
  description: string;
  conditionId: string;
  outcomes: string[];
  outcomePrices: number[];
  /** The first token is the first outcome's ("Yes"). */
  clobTokenIds: string[];
  active: boolean;
  closed: boolean;
  archived: boolean;
  acceptingOrders: boolean;
  negRisk: boolean;
  volume: number;
  volume24hr: number;
  liquidity: number;
  bestBid: number | null;
  bestAsk: number | null;
  lastTradePrice: number | null;
  tickSize: number | null;
  image: string;
  icon: string;
  startDate: string | null;
  endDate: string | null;
  /** `proposed`, `disputed`, `resolved`, … as the venue writes it; empty before any proposal. */
  umaResolutionStatus: string;
}

export interface VenueEvent {
  id: string;
  slug: string;
  title: string;
  description: string;
  image: string;
  icon: string;
  active: boolean;
  closed: boolean;
  archived: boolean;
  startDate: string | null;
  endDate: string | null;
  volume: number;
  volume24hr: number;
  liquidity: number;
  negRisk: boolean;
  tags: VenueTag[];
  markets: VenueMarket[];
}

export function isOpen(x: { active: boolean; closed: boolean; archived: boolean }): boolean {
  return x.active && !x.closed && !x.archived;
}

/** Why a record was left out; the caller decides how loudly to say so. */
export type SkipReporter = (kind: 'event' | 'market' | 'tag', id: unknown, reason: string) => void;

const noReport: SkipReporter = () => {};

export function toVenueTag(raw: unknown, onSkip: SkipReporter = noReport): VenueTag | null {
  const parsed = GammaTagSchema.safeParse(raw);
  if (!parsed.success) {
    onSkip('tag', idOf(raw), parsed.error.issues[0]?.message ?? 'invalid');
    return null;
  }
  return parsed.data;
}

export function toVenueMarket(raw: unknown, onSkip: SkipReporter = noReport, eventId?: string): VenueMarket | null {
  const parsed = GammaMarketSchema.safeParse(raw);
  if (!parsed.success) {
    onSkip('market', idOf(raw), parsed.error.issues[0]?.message ?? 'invalid');
    return null;
  }
  const m = parsed.data;
  if (m.outcomes.length !== 2 || m.clobTokenIds.length !== 2) {
    onSkip('market', m.id, `expected two outcomes and tokens, got ${m.outcomes.length}/${m.clobTokenIds.length}`);
    return null;
  }
  return marketFromParsed(m, eventId ?? m.events?.[0]?.id);
}

function marketFromParsed(m: GammaMarket, eventId: string | undefined): VenueMarket {
  return {
    id: m.id,
    ...(eventId === undefined ? {} : { eventId }),
    question: m.question,
    slug: m.slug,
    groupItemTitle: m.groupItemTitle,
    description: m.description,
    conditionId: m.conditionId,
    outcomes: m.outcomes,
    outcomePrices: (m.outcomePrices ?? []).map(Number).filter(Number.isFinite),
    clobTokenIds: m.clobTokenIds,
    active: m.active,
    closed: m.closed,
    archived: m.archived,
    acceptingOrders: m.acceptingOrders,
    negRisk: m.negRisk,
    volume: m.volumeNum ?? m.volume ?? 0,
    volume24hr: m.volume24hr ?? 0,
    liquidity: m.liquidityNum ?? m.liquidity ?? 0,
    bestBid: m.bestBid,
    bestAsk: m.bestAsk,
    lastTradePrice: m.lastTradePrice,
    tickSize: m.orderPriceMinTickSize,
    image: m.image,
    icon: m.icon,
    startDate: m.startDate,
    endDate: m.endDate,
    umaResolutionStatus: m.umaResolutionStatus,
  };
}

export function toVenueEvent(raw: unknown, onSkip: SkipReporter = noReport): VenueEvent | null {
  const parsed = GammaEventSchema.safeParse(raw);
  if (!parsed.success) {
    onSkip('event', idOf(raw), parsed.error.issues[0]?.message ?? 'invalid');
    return null;
  }
  const e = parsed.data;
  const keep = <T>(x: T | null): x is T => x !== null;
  return {
    id: e.id,
    slug: e.slug,
    title: e.title,
    description: e.description,
    image: e.image,
    icon: e.icon,
    active: e.active,
    closed: e.closed,
    archived: e.archived,
    startDate: e.startDate,
    endDate: e.endDate,
    volume: e.volume ?? 0,
    volume24hr: e.volume24hr ?? 0,
    liquidity: e.liquidity ?? 0,
    negRisk: e.negRisk,
    tags: (e.tags ?? []).map((t) => toVenueTag(t, onSkip)).filter(keep),
    markets: (e.markets ?? []).map((m) => toVenueMarket(m, onSkip, e.id)).filter(keep),
  };
}

function idOf(raw: unknown): unknown {
  return typeof raw === 'object' && raw !== null && 'id' in raw ? raw.id : undefined;
}

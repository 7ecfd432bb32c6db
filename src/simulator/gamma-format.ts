import { bestAsk, bestBid, displayedPrice, formatPrice, round4 } from './books.js';
import type { SimEvent, SimMarket, SimState } from './state.js';

const iso = (ms: number) => new Date(ms).toISOString();
const imageOf = (slug: string) => `https://polymarket-upload.s3.us-east-2.amazonaws.com/${slug}.png`;

// The venue writes these arrays as JSON inside a string, with a space after each comma.
const jsonInString = (items: string[]) => `[${items.map((s) => JSON.stringify(s)).join(', ')}]`;

/** A market exactly as `GET /markets/{id}` (and an event's `markets`) shows it. */
export function gammaMarket(state: SimState, m: SimMarket, withEvents = false) {
  const [yes, no] = state.bookPair(m);
  const yesPrice = displayedPrice(yes) ?? m.openingPrice;
  const noPrice = displayedPrice(no) ?? round4(1 - yesPrice);
  // A resolved market's prices are the payout: 1 for the winner, 0 for the other (venue/FORMATS.md).
  const won = m.resolutionStatus === 'resolved' ? m.resolutionOutcome : null;
  const prices = won === null ? [formatPrice(yesPrice), formatPrice(noPrice)] : won === 0 ? ['1', '0'] : ['0', '1'];
  const bid = bestBid(yes);
  const ask = bestAsk(yes);
  const event = state.events.get(m.eventId) as SimEvent;
  return {
    id: m.id,
    question: m.question,
    conditionId: m.conditionId,
    slug: m.slug,
    endDate: iso(m.endDateMs),
    liquidity: formatPrice(m.liquidity),
    startDate: iso(m.createdAtMs),
    image: imageOf(m.slug),
    icon: imageOf(m.slug),
    description: m.description,
    outcomes: jsonInString(['Yes', 'No']),
    outcomePrices: jsonInString(prices),
    volume: formatPrice(m.volume),
    active: true,
    closed: m.closed,
    archived: false,
    new: false,
    featured: false,
    restricted: true,
    createdAt: iso(m.createdAtMs),
    updatedAt: iso(Math.max(yes.timestampMs, m.closedAtMs ?? 0)),
    ...(m.closedAtMs === null ? {} : { closedTime: iso(m.closedAtMs) }),
    groupItemTitle: m.groupItemTitle,
    groupItemThreshold: '0',
    questionID: m.questionId,
    enableOrderBook: true,
    orderPriceMinTickSize: m.tickSize,
    orderMinSize: 5,
    volumeNum: m.volume,
    liquidityNum: m.liquidity,
    volume24hr: m.volume24hr,
    clobTokenIds: jsonInString(m.tokenIds),
    umaResolutionStatus: m.resolutionStatus,
    acceptingOrders: !m.closed,
    negRisk: m.negRisk,
    ...(bid === null ? {} : { bestBid: bid }),
    ...(ask === null ? {} : { bestAsk: ask }),
    ...(bid === null || ask === null ? {} : { spread: round4(ask - bid) }),
    lastTradePrice: yes.lastTrade?.price ?? 0,
    oneHourPriceChange: 0,
    oneDayPriceChange: round4(yesPrice - m.openingPrice),
    ...(withEvents ? { events: [{ id: event.id, slug: event.slug, title: event.title }] } : {}),
  };
}

/** An event exactly as `GET /events/{id}` shows it, markets and tags included. */
export function gammaEvent(state: SimState, e: SimEvent) {
  const totals = state.eventTotals(e);
  return {
    id: e.id,
    ticker: e.slug,
    slug: e.slug,
    title: e.title,
    description: e.description,
    resolutionSource: '',
    startDate: iso(e.createdAtMs),
    creationDate: iso(e.createdAtMs),
    endDate: iso(e.endDateMs),
    ...(e.closedAtMs === null ? {} : { closedTime: iso(e.closedAtMs) }),
    image: imageOf(e.slug),
    icon: imageOf(e.slug),
    active: true,
    closed: e.closed,
    archived: false,
    new: false,
    featured: false,
    restricted: true,
    liquidity: totals.liquidity,
    volume: totals.volume,
    openInterest: 0,
    volume24hr: totals.volume24hr,
    createdAt: iso(e.createdAtMs),
    enableOrderBook: true,
    negRisk: e.negRisk,
    commentCount: 0,
    markets: state.marketsOf(e).map((m) => gammaMarket(state, m)),
    tags: e.tagIds.map((id) => state.tags.get(id)),
  };
}

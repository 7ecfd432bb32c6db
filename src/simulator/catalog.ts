import { round4 } from './books.js';
import type { SimEvent, SimMarket, SimState, SimTag } from './state.js';
import { drawTemplate } from './templates.js';

const DAY = 86_400_000;

export class SimError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

export interface NewEventInput {
  title: string;
  slug?: string | undefined;
  tags?: string[] | undefined;
  markets: { question: string; groupItemTitle?: string | undefined; price?: number | undefined }[];
  createdAtMs?: number;
  endDateMs?: number;
  /** ISO 8601, as `POST /control/events` and scenario files give it. */
  endDate?: string | undefined;
}

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
}

function tagFor(state: SimState, slug: string): SimTag {
  const known = state.tagBySlug(slug);
  if (known) return known;
  const id = String(200000 + state.tags.size);
  const tag = { id, label: slug.replace(/(^|-)(\w)/g, (_, sep: string, c: string) => (sep ? ' ' : '') + c.toUpperCase()), slug };
  state.tags.set(id, tag);
  return tag;
}

/** Adds an open event with its markets and books; the same calls on the same seed give the same ids. */
export function addEvent(state: SimState, input: NewEventInput, nowMs: number): SimEvent {
  const r = state.rng;
  const slugTaken = (s: string) => [...state.events.values()].some((e) => e.slug === s);
  if (input.slug !== undefined && slugTaken(input.slug)) throw new SimError(409, `slug already used: ${input.slug}`);
  const id = String((state.nextEventId += r.int(1, 40)));
  const base = input.slug ?? (slugify(input.title) || 'event');
  const slug = slugTaken(base) ? `${base}-${id}` : base;
  const createdAtMs = input.createdAtMs ?? nowMs;
  const endDateMs = input.endDateMs ?? (input.endDate === undefined ? createdAtMs + r.int(3, 400) * DAY : Date.parse(input.endDate));
  const negRisk = input.markets.length > 1;
  const event: SimEvent = {
    id,
    slug,
    title: input.title,
    description: `This event covers: ${input.title} It resolves according to the rules of each of its markets.`,
    closed: false,
    createdAtMs,
    endDateMs,
    closedAtMs: null,
    negRisk,
    tagIds: (input.tags ?? []).map((t) => tagFor(state, t).id),
    marketIds: [],
  };
  state.events.set(id, event);
  const share = 1 / input.markets.length;
  for (const spec of input.markets) {
    const price = spec.price ?? Math.round(Math.min(0.97, Math.max(0.03, share * (0.3 + r.next() * 1.4))) * 100) / 100;
    const market: SimMarket = {
      id: String((state.nextMarketId += r.int(1, 7))),
      eventId: id,
      question: spec.question,
      slug: `${slugify(spec.question) || 'market'}-${state.nextMarketId}`,
      groupItemTitle: negRisk ? (spec.groupItemTitle ?? spec.question) : '',
      description: `This market will resolve to "Yes" if ${spec.question.replace(/\?$/, '')}. Otherwise, it will resolve to "No".`,
      conditionId: `0x${r.hex(64)}`,
      questionId: `0x${r.hex(64)}`,
      tokenIds: [r.digits(r.int(77, 78)), r.digits(r.int(77, 78))],
      closed: false,
      createdAtMs,
      endDateMs,
      closedAtMs: null,
      volume: round4(10 ** (2 + r.next() * 5)),
      volume24hr: 0,
      liquidity: round4(10 ** (2 + r.next() * 3.5)),
      tickSize: price < 0.04 || price > 0.96 ? 0.001 : 0.01,
      negRisk,
      openingPrice: price,
      resolutionStatus: '',
      resolutionOutcome: null,
    };
    market.volume24hr = round4(market.volume * r.next() * 0.05);
    state.markets.set(market.id, market);
    event.marketIds.push(market.id);
    state.newBook(market, market.tokenIds[0]);
    state.newBook(market, market.tokenIds[1]);
    state.quote(market, price, { trade: { side: 'BUY', size: r.int(5, 500) } }, createdAtMs);
  }
  return event;
}

/** A realistic catalog: single and negRisk events over the venue's tags, a few already closed. */
export function buildCatalog(state: SimState, count: number, nowMs: number): void {
  const r = state.rng;
  for (let i = 0; i < count; i++) {
    const t = drawTemplate(r);
    const markets = t.items
      ? t.items.map((it) => ({ question: it.question, groupItemTitle: it.title }))
      : [{ question: t.question ?? t.title }];
    const createdAtMs = nowMs - (count - i) * 6 * 3_600_000 - r.int(0, 5) * 3_600_000;
    const event = addEvent(state, { title: t.title, tags: t.tags, markets, createdAtMs }, nowMs);
    if (r.chance(0.06)) state.closeEvent(event, Math.max(createdAtMs, nowMs - r.int(1, 30) * DAY));
    else if (event.negRisk && r.chance(0.3)) {
      state.closeMarket(state.markets.get(r.pick(event.marketIds)) as SimMarket, Math.max(createdAtMs, nowMs - r.int(1, 5) * DAY));
    }
  }
}

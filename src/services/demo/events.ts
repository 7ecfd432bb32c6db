import { asc, count, desc, inArray } from 'drizzle-orm';
import { catalogEvents, catalogMarkets } from '../../db/schema/index.js';
import { dbOf, type ServiceContext } from '../context.js';
import { parseInput } from '../validate.js';
import { DemoEventsInput } from './schemas.js';
import { venueEncodedOutcomes } from '../../domain/outcomes.js';

const iso = (d: Date | null) => (d ? d.toISOString() : '');

/** Every catalog event (open and closed), newest first, with its markets. */
export async function listDemoEvents({ ctx, input }: { ctx: ServiceContext; input: DemoEventsInput }) {
  const { page, limit } = parseInput(DemoEventsInput, input);
  const db = dbOf(ctx);
  const [total] = await db.select({ n: count() }).from(catalogEvents);
  const totalCount = total?.n ?? 0;
  const events = await db
    .select()
    .from(catalogEvents)
    .orderBy(desc(catalogEvents.firstSeenAt), asc(catalogEvents.id))
    .limit(limit)
    .offset((page - 1) * limit);
  const ids = events.map((e) => e.id);
  const markets =
    ids.length === 0
      ? []
      : await db
          .select()
          .from(catalogMarkets)
          .where(inArray(catalogMarkets.eventId, ids))
          .orderBy(asc(catalogMarkets.position), asc(catalogMarkets.id));
  return {
    events: events.map((e) => ({
      id: e.id,
      title: e.title,
      slug: e.slug,
      active: e.active,
      closed: e.closed,
      volume: e.volume,
      startDate: iso(e.startDate),
      endDate: iso(e.endDate),
      markets: markets
        .filter((m) => m.eventId === e.id)
        .map((m) => ({
          id: m.id,
          question: m.question,
          slug: m.slug,
          ...venueEncodedOutcomes(m),
          active: m.active,
          closed: m.closed,
          volume: m.volume,
        })),
    })),
    page,
    limit,
    totalCount,
    totalPages: Math.ceil(totalCount / limit),
  };
}

import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import { catalogEvents, catalogMarkets } from '../../db/schema/index.js';
import { marketChartUrl } from '../../domain/links.js';
import { venueEncodedOutcomes } from '../../domain/outcomes.js';

export interface SearchResult {
  id: string;
  title: string;
  slug: string;
  image: string;
  type: 'event';
  markets: { id: string; image: string; question: string; outcomes: string; outcomePrices: string; serviceSVGLink: string }[];
}

export function publicBaseUrl(config: Config): string {
  if (config.PUBLIC_URL) return config.PUBLIC_URL.replace(/\/+$/, '');
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return `http://${host}:${config.PORT}`;
}

/** The spec's search result items for the given event ids, in the given order, open markets only. */
export async function loadSearchResults(database: Database, config: Config, ids: string[]): Promise<SearchResult[]> {
  if (ids.length === 0) return [];
  const events = await database.db.select().from(catalogEvents).where(inArray(catalogEvents.id, ids));
  const markets = await database.db
    .select()
    .from(catalogMarkets)
    .where(and(inArray(catalogMarkets.eventId, ids), eq(catalogMarkets.closed, false)))
    .orderBy(asc(catalogMarkets.position), asc(catalogMarkets.id));
  const base = publicBaseUrl(config);
  const byId = new Map(events.map((e) => [e.id, e]));
  return ids.flatMap((id) => {
    const e = byId.get(id);
    if (!e) return [];
    return [
      {
        id: e.id,
        title: e.title,
        slug: e.slug,
        image: e.image,
        type: 'event' as const,
        markets: markets
          .filter((m) => m.eventId === id)
          .map((m) => ({
            id: m.id,
            image: m.image,
            question: m.question,
            ...venueEncodedOutcomes(m),
            serviceSVGLink: marketChartUrl(base, m.id),
          })),
      },
    ];
  });
}

import { sql, type SQL } from 'drizzle-orm';
import type { Config } from '../../config.js';
import type { Database, Queryable } from '../../db/client.js';
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

interface JsonEvent {
  id: string;
  title: string;
  slug: string;
  image: string;
  markets: { id: string; image: string; question: string; outcomes: string[]; outcomePrices: number[] }[] | null;
}

/**
 * The spec's search result items for the events of `ranked` (a query of id, ord), in `ord` order,
 * open markets only. One query, the search itself included, answering one JSON document with only
 * the fields shown: whole rows (the description, the search vector) decoded field by field cost
 * more than the search itself on PGlite, and each statement through it costs ~1 ms of CPU.
 */
export async function loadSearchResults(database: Database, config: Config, ranked: SQL | null, on?: Queryable): Promise<SearchResult[]> {
  if (ranked === null) return [];
  const [row] = await database.rows<{ events: JsonEvent[] | string | null }>(
    sql`select json_agg(json_build_object('id', e.id, 'title', e.title, 'slug', e.slug, 'image', e.image, 'markets',
        (select json_agg(json_build_object('id', m.id, 'image', m.image, 'question', m.question, 'outcomes', m.outcomes,
            'outcomePrices', m.outcome_prices) order by m.position, m.id)
          from catalog_markets m where m.event_id = e.id and not m.closed)) order by h.ord) as events
      from (${ranked}) h join catalog_events e on e.id = h.id`,
    on,
  );
  const found = row?.events ?? [];
  // postgres.js parses json itself; PGlite's drizzle driver may hand it over as text.
  const events = typeof found === 'string' ? (JSON.parse(found) as JsonEvent[]) : found;
  const base = publicBaseUrl(config);
  return events.map((e) => ({
    id: e.id,
    title: e.title,
    slug: e.slug,
    image: e.image,
    type: 'event' as const,
    markets: (e.markets ?? []).map((m) => ({
      id: m.id,
      image: m.image,
      question: m.question,
      ...venueEncodedOutcomes(m),
      serviceSVGLink: marketChartUrl(base, m.id),
    })),
  }));
}

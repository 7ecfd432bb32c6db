import type { Database } from '../../src/db/index.js';
import { catalogEventTags, catalogEvents, catalogMarkets, catalogTags } from '../../src/db/schema/index.js';

let counter = 0;

export interface SeededEvent {
  id: string;
  slug: string;
  title: string;
  markets: { id: string; question: string; yesTokenId: string }[];
}

/** Inserts an open event with its markets, as the catalog sync would. */
export async function seedEvent(
  database: Database,
  opts: { title?: string; markets?: number; tags?: string[]; volume24hr?: number; closed?: boolean } = {},
): Promise<SeededEvent> {
  const n = ++counter;
  const id = String(900000 + n * 10 + Math.floor(Math.random() * 10)) + String(Date.now() % 100000);
  const title = opts.title ?? `Test event ${n}`;
  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-') + `-${id}`;
  await database.db.insert(catalogEvents).values({
    id,
    slug,
    title,
    volume24hr: opts.volume24hr ?? 0,
    closed: opts.closed ?? false,
  });
  const markets = Array.from({ length: opts.markets ?? 1 }, (_, i) => ({
    id: `${id}${i}`,
    question: `${title}: outcome ${i + 1}?`,
    yesTokenId: `${id}${i}1`.padEnd(77, '7'),
  }));
  if (markets.length > 0) {
    await database.db.insert(catalogMarkets).values(
      markets.map((m, position) => ({
        id: m.id,
        eventId: id,
        position,
        question: m.question,
        outcomes: ['Yes', 'No'],
        outcomePrices: [0.5, 0.5],
        clobTokenIds: [m.yesTokenId, m.yesTokenId.replace(/7$/, '8')],
        yesTokenId: m.yesTokenId,
      })),
    );
  }
  for (const slugTag of opts.tags ?? []) {
    await database.db.insert(catalogTags).values({ id: `t-${slugTag}`, slug: slugTag, label: slugTag }).onConflictDoNothing();
    await database.db.insert(catalogEventTags).values({ eventId: id, tagId: `t-${slugTag}` });
  }
  return { id, slug, title, markets };
}

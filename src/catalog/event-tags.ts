import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '../db/client.js';
import { catalogEventTags, catalogTags } from '../db/schema/index.js';
import type { VenueEvent } from '../venue/gamma/types.js';
import { chunks } from './rows.js';

/** Stores the events' tags and makes their tag links exactly the fetched ones, writing only what differs. */
export async function replaceEventTags(tx: Tx, events: VenueEvent[]): Promise<void> {
  if (events.length === 0) return;
  const tags = new Map(events.flatMap((e) => e.tags).map((t) => [t.id, t]));
  for (const batch of chunks([...tags.values()])) {
    // A slug taken by another id is left as it is; links to the skipped id are dropped below.
    await tx.insert(catalogTags).values(batch).onConflictDoNothing();
  }
  const known = new Set<string>();
  for (const ids of chunks([...tags.keys()], 1000)) {
    for (const r of await tx.select({ id: catalogTags.id }).from(catalogTags).where(inArray(catalogTags.id, ids))) known.add(r.id);
  }
  const present = new Map<string, Set<string>>();
  for (const ids of chunks(events.map((e) => e.id), 1000)) {
    for (const r of await tx.select().from(catalogEventTags).where(inArray(catalogEventTags.eventId, ids))) {
      present.set(r.eventId, (present.get(r.eventId) ?? new Set()).add(r.tagId));
    }
  }
  const missing: { eventId: string; tagId: string }[] = [];
  for (const e of events) {
    const wanted = new Set(e.tags.map((t) => t.id).filter((id) => known.has(id)));
    const has = present.get(e.id) ?? new Set<string>();
    for (const tagId of wanted) if (!has.has(tagId)) missing.push({ eventId: e.id, tagId });
    const stale = [...has].filter((id) => !wanted.has(id));
    if (stale.length > 0) await tx.delete(catalogEventTags).where(and(eq(catalogEventTags.eventId, e.id), inArray(catalogEventTags.tagId, stale)));
  }
  for (const batch of chunks(missing, 1000)) await tx.insert(catalogEventTags).values(batch).onConflictDoNothing();
}

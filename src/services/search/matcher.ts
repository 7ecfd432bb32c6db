import { sql, type SQL } from 'drizzle-orm';
import type { Database, Queryable } from '../../db/client.js';
import type { StoredQuery } from '../../db/schema/index.js';
import type { MatchOperator } from '../../domain/enums.js';

export interface Term {
  text: string;
  include: boolean;
}

/** A search over open events: keyphrases against the text index, or tag slugs. */
export interface EventQuery {
  by: 'keyphrases' | 'tags';
  terms: Term[];
  operator: MatchOperator;
}

// One term as a boolean condition and a relevance score (0 when it does not match).
function termSql(by: EventQuery['by'], text: string): { cond: SQL; rank: SQL } {
  if (by === 'keyphrases') {
    const q = sql`phraseto_tsquery('english', ${text})`;
    return { cond: sql`(e.search @@ ${q})`, rank: sql`ts_rank(e.search, ${q})` };
  }
  // Tags match whatever the case, as a watchlist's tags do ("Politics" is "politics"): the venue's
  // slugs are lowercase, and a slug stored otherwise is compared lowercased too.
  const cond = sql`exists (select 1 from catalog_event_tags et join catalog_tags t on t.id = et.tag_id
    where et.event_id = e.id and lower(t.slug) = ${text.toLowerCase()})`;
  return { cond, rank: sql`(case when ${cond} then 1 else 0 end)` };
}

/**
 * Open events matching the query as a query of (id, ord): `ord` 1 for the best match, then by 24 h
 * volume. With `within`, only those events are considered (the sync's auto-add check). Null when
 * nothing can match. A query, not ids, so a caller can read the events it shows in the same statement.
 */
export function rankedEventsSql(query: EventQuery, opts: { limit: number; within?: string[] }): SQL | null {
  const included = query.terms.filter((t) => t.include).map((t) => termSql(query.by, t.text));
  const excluded = query.terms.filter((t) => !t.include).map((t) => termSql(query.by, t.text));
  if (included.length === 0) return null;
  if (opts.within && opts.within.length === 0) return null;
  const joiner = query.operator === 'AND' ? sql` and ` : sql` or `;
  const where: SQL[] = [
    sql`e.active and not e.closed and not e.archived`,
    sql`(${sql.join(included.map((t) => t.cond), joiner)})`,
    ...excluded.map((t) => sql`not ${t.cond}`),
  ];
  if (opts.within) where.push(sql`e.id in (${sql.join(opts.within.map((id) => sql`${id}`), sql`, `)})`);
  const rank = sql.join(included.map((t) => t.rank), sql` + `);
  return sql`select e.id, row_number() over (order by (${rank}) desc, e.volume_24hr desc, e.id asc) as ord
    from catalog_events e where ${sql.join(where, sql` and `)}
    order by ord limit ${opts.limit}`;
}

/** Ids of open events matching the query, best match first (rankedEventsSql). */
export async function matchEventIds(
  database: Database,
  query: EventQuery,
  opts: { limit: number; within?: string[]; on?: Queryable },
): Promise<string[]> {
  const ranked = rankedEventsSql(query, opts);
  if (ranked === null) return [];
  const rows = await database.rows<{ id: string }>(sql`select r.id from (${ranked}) r order by r.ord`, opts.on);
  return rows.map((r) => r.id);
}

/** A watchlist's stored query as an event query; null when it has no included term. */
export function fromStoredQuery(query: StoredQuery): EventQuery | null {
  const byTags = query.tags.length > 0;
  const terms = byTags ? query.tags.map((t) => ({ text: t.tagSlug, include: t.include })) : query.keyphrases;
  if (!terms.some((t) => t.include)) return null;
  return { by: byTags ? 'tags' : 'keyphrases', terms, operator: query.searchMatchOperator };
}

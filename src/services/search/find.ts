import { sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import type { ServiceContext } from '../context.js';
import { validationError } from '../errors.js';
import { parseInput } from '../validate.js';
import type { MarketRef } from './lookup.js';
import { loadSearchResults, type SearchResult } from './results.js';
import { FindInput } from './schemas.js';

type PublicContext = Omit<ServiceContext, 'account' | 'apiTokenId'>;

/** An open market as people-search finds it: enough to list it and to make an alert on it. */
export interface FoundMarket extends Omit<MarketRef, 'lastTradePrice'> {
  volume24hr: number;
}

const MAX_WORDS = 8;
// A word this long or longer may match with a typo; shorter ones have too few trigrams to tell.
const FUZZY_MIN = 4;
const TRIGRAM = 3;

/**
 * The words of a person's query: lowercased, split at anything that is not a letter or digit
 * ("$100k" → "100k", "Zorblax-mayor" → "zorblax", "mayor"), each kept once. Splitting this way also
 * keeps LIKE and regex metacharacters out of the patterns.
 */
export function queryWords(q: string): string[] {
  const words = q
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');
  return [...new Set(words)].slice(0, MAX_WORDS);
}

function wordsOf(rawInput: unknown): { words: string[]; limit: number } {
  const input = parseInput(FindInput, rawInput);
  const words = queryWords(input.q);
  if (words.length === 0) throw validationError('q: type at least one letter or digit');
  return { words, limit: input.limit };
}

/**
 * One word against an open market and its event (aliases `m` and `e`): whether it matches and how
 * well. 3: a word of the text starts with it; 2: it is inside a word; below 1: a near miss (typo)
 * by pg_trgm's word similarity, whose `<%` operator (threshold 0.6) decides the match.
 */
function wordSql(word: string): { cond: SQL; score: SQL } {
  const like = `%${word}%`;
  const start = `\\m${word}`;
  const title = sql`lower(e.title)`;
  const question = sql`lower(m.question)`;
  const fuzzy = word.length >= FUZZY_MIN;
  // A word of one or two letters ("ai", "us") has no trigram to look up: it must start a word.
  const short = word.length < TRIGRAM;
  const cond = fuzzy
    ? sql`(${title} like ${like} or ${question} like ${like} or ${word} <% ${title} or ${word} <% ${question})`
    : short
      ? sql`((' ' || ${title} || ' ' || ${question}) like ${`% ${word}%`})`
      : sql`(${title} like ${like} or ${question} like ${like})`;
  const near = fuzzy ? sql`greatest(word_similarity(${word}, ${title}), word_similarity(${word}, ${question}))` : sql`0`;
  const score = sql`(case when ${title} ~ ${start} or ${question} ~ ${start} then 3
    when ${title} like ${like} or ${question} like ${like} then 2 else ${near} end)`;
  return { cond, score };
}

/**
 * Open markets (of open events) matching every word, with their score. The longest word picks the
 * candidates through the trigram indexes on the title and the question; the other words filter them.
 */
function matchesSql(words: string[]): SQL {
  const key = [...words].sort((a, b) => b.length - a.length)[0]!;
  const keyLike = `%${key}%`;
  const keyCond = (column: SQL) => (key.length >= FUZZY_MIN ? sql`(${column} like ${keyLike} or ${key} <% ${column})` : sql`${column} like ${keyLike}`);
  // Only words of one or two letters: nothing to look up in a trigram index, every open market is a candidate.
  // Otherwise the trigram indexes' expressions, the open rows' text (null when closed: never a candidate).
  const candidates =
    key.length < TRIGRAM
      ? sql`select id from catalog_markets where not closed`
      : sql`select id from catalog_markets where ${keyCond(sql`(case when closed then null else lower(question) end)`)}
      union
      select cm.id from catalog_events ce join catalog_markets cm on cm.event_id = ce.id
        where ${keyCond(sql`(case when ce.closed then null else lower(ce.title) end)`)}`;
  const parts = words.map(wordSql);
  return sql`
    with candidates as (${candidates})
    select m.id as market_id, m.event_id, (${sql.join(
      parts.map((p) => p.score),
      sql` + `,
    )})::float8 as score
    from candidates c
    join catalog_markets m on m.id = c.id
    join catalog_events e on e.id = m.event_id
    where e.active and not e.closed and not e.archived
      and m.active and not m.closed and not m.archived
      and ${sql.join(
        parts.map((p) => p.cond),
        sql` and `,
      )}`;
}

/**
 * Runs a search in a read transaction of its own with sequential and plain index scans off, which
 * leaves bitmap scans over the GIN trigram indexes: the planner underestimates what pg_trgm's
 * operators cost per row and otherwise reads the whole catalog ("zorb" on 5,000 events: 0.8 s
 * against 0.15 s on PGlite; docs/catalog.md "People-search"). `set_config(…, true)` is `set
 * local`: it ends with the transaction.
 */
async function inSearchTransaction<T>(ctx: PublicContext, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  return ctx.database.db.transaction(async (tx) => {
    // Both settings in one statement: each round trip costs ~0.1–1 ms through PGlite.
    await tx.execute(sql`select set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true)`);
    return fn(tx);
  }, { accessMode: 'read only' });
}

async function searchRows<T extends Record<string, unknown>>(ctx: PublicContext, query: SQL): Promise<T[]> {
  return inSearchTransaction(ctx, (tx) => ctx.database.rows<T>(query, tx));
}

/**
 * People-search over open markets: every word must match the market's question or its event's
 * title, in any order, as a word start, inside a word or (from 4 letters) with a typo. Best match
 * first, then by 24 h volume, then total volume. Not the spec's keyphrase search (`searchByKeyphrases`).
 */
export async function findMarkets({ ctx, input }: { ctx: PublicContext; input: FindInput }): Promise<FoundMarket[]> {
  const { words, limit } = wordsOf(input);
  const rows = await searchRows<{
    id: string;
    question: string;
    event_id: string;
    event_title: string;
    outcomes: string[];
    outcome_prices: number[];
    volume_24hr: number;
    end_date: Date | string | null;
  }>(
    ctx,
    sql`with matches as (${matchesSql(words)})
      select m.id, m.question, m.event_id, e.title as event_title, m.outcomes, m.outcome_prices, m.volume_24hr,
        coalesce(m.end_date, e.end_date) as end_date
      from matches h join catalog_markets m on m.id = h.market_id join catalog_events e on e.id = m.event_id
      order by h.score desc, m.volume_24hr desc, m.volume desc, m.id asc
      limit ${limit}`,
  );
  return rows.map((r) => ({
    id: r.id,
    question: r.question,
    eventId: r.event_id,
    eventTitle: r.event_title,
    outcomes: r.outcomes,
    outcomePrices: r.outcome_prices,
    volume24hr: Number(r.volume_24hr),
    endDate: r.end_date === null ? null : new Date(r.end_date).toISOString(),
  }));
}

/**
 * The same search by event: an event ranks by its best-matching open market, then by 24 h volume,
 * then total volume. Results in the shape of `POST /search` items, with all the event's open markets.
 */
export async function findEvents({ ctx, input }: { ctx: PublicContext; input: FindInput }): Promise<SearchResult[]> {
  const { words, limit } = wordsOf(input);
  // The ranking and the events it shows in one statement.
  const ranked = sql`with matches as (${matchesSql(words)})
      select e.id, row_number() over (order by max(h.score) desc, e.volume_24hr desc, e.volume desc, e.id asc) as ord
      from matches h join catalog_events e on e.id = h.event_id
      group by e.id, e.volume_24hr, e.volume
      order by ord
      limit ${limit}`;
  return inSearchTransaction(ctx, (tx) => loadSearchResults(ctx.database, ctx.config, ranked, tx));
}

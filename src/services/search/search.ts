import type { ServiceContext } from '../context.js';
import { parseInput } from '../validate.js';
import { rankedEventsSql, type EventQuery } from './matcher.js';
import { searchAnswerCache } from './answer-cache.js';
import { loadSearchResults, publicBaseUrl, type SearchResult } from './results.js';
import { SearchByKeyphrasesInput, SearchByTagsInput, SearchLimit } from './schemas.js';
import { validationError } from '../errors.js';

type PublicContext = Omit<ServiceContext, 'account' | 'apiTokenId'>;
interface SearchArgs<I> {
  ctx: PublicContext;
  input: I;
  query?: SearchLimit;
}

async function run(ctx: PublicContext, query: EventQuery, rawLimit: unknown): Promise<SearchResult[]> {
  const { limit } = parseInput(SearchLimit, rawLimit ?? {});
  if (!query.terms.some((t) => t.include)) throw validationError(`${query.by}: at least one term must have include: true`);
  const read = () => loadSearchResults(ctx.database, ctx.config, rankedEventsSql(query, { limit }));
  const cache = searchAnswerCache(ctx.database);
  if (!cache) return read();
  // The terms as given (order, case and all): the answer is exactly the SQL's for them.
  const key = JSON.stringify([publicBaseUrl(ctx.config), query.by, query.operator, limit, query.terms.map((t) => [t.text, t.include])]);
  return cache.answer(key, read);
}

export async function searchByKeyphrases({ ctx, input, query }: SearchArgs<SearchByKeyphrasesInput>): Promise<SearchResult[]> {
  const body = parseInput(SearchByKeyphrasesInput, input);
  return run(ctx, { by: 'keyphrases', terms: body.keyphrases, operator: body.searchMatchOperator }, query);
}

export async function searchByTags({ ctx, input, query }: SearchArgs<SearchByTagsInput>): Promise<SearchResult[]> {
  const body = parseInput(SearchByTagsInput, input);
  return run(ctx, { by: 'tags', terms: body.tags, operator: body.searchMatchOperator }, query);
}

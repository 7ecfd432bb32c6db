import type { StoredQuery } from '../../db/schema/index.js';
import type { MatchOperator } from '../../domain/enums.js';
import { limitExceeded, validationError } from '../errors.js';

type Tag = StoredQuery['tags'][number];
type Phrase = StoredQuery['keyphrases'][number];

/** Builds a stored query, enforcing one kind of term, no duplicates, an included term, the term quota. */
export function buildQuery(
  parts: { tags?: Tag[]; keyphrases?: Phrase[]; operator: MatchOperator },
  maxTerms: number,
  now = new Date(),
): StoredQuery {
  const tags = dedupe(parts.tags ?? [], (t) => t.tagSlug);
  const keyphrases = dedupe(parts.keyphrases ?? [], (k) => k.text.toLowerCase());
  if (tags.length > 0 && keyphrases.length > 0) {
    throw validationError('query: use either tags or keyphrases, not both');
  }
  const terms = tags.length + keyphrases.length;
  if (terms > maxTerms) {
    throw limitExceeded(`Query term limit exceeded: at most ${maxTerms} tags or keyphrases (MAX_QUERY_TERMS)`, 'query term', maxTerms);
  }
  if (terms > 0 && ![...tags, ...keyphrases].some((t) => t.include)) {
    throw validationError('query: at least one term must have include: true');
  }
  return { keyphrases, tags, searchMatchOperator: parts.operator, createdAt: now.toISOString() };
}

function dedupe<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const item of items) seen.set(key(item), item);
  return [...seen.values()];
}

export const usesKeyphrases = (q: StoredQuery) => q.keyphrases.length > 0;
export const usesTags = (q: StoredQuery) => q.tags.length > 0;

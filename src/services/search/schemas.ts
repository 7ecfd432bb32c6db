import { z } from 'zod';
import { MATCH_OPERATORS } from '../../domain/enums.js';
import { Id, text } from '../schemas.js';

const MatchOperator = z.enum(MATCH_OPERATORS, { error: 'must be "OR" or "AND"' });
const Term = z.strictObject({ text: text().trim().min(1, 'must not be empty').max(200), include: z.boolean().default(true) });
const terms = z.array(Term).min(1, 'at least one term is needed').max(50, 'at most 50 terms');

export const SearchByKeyphrasesInput = z.object({ keyphrases: terms, searchMatchOperator: MatchOperator.default('OR') });
export type SearchByKeyphrasesInput = z.input<typeof SearchByKeyphrasesInput>;

export const SearchByTagsInput = z.object({ tags: terms, searchMatchOperator: MatchOperator.default('OR') });
export type SearchByTagsInput = z.input<typeof SearchByTagsInput>;

export const SearchLimit = z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) });
export type SearchLimit = z.input<typeof SearchLimit>;

export const ChartInput = z.object({ marketId: Id });
export type ChartInput = z.input<typeof ChartInput>;

/** People-search (`findMarkets`, `findEvents`): free words, any order. */
export const FindInput = z.object({
  q: text().trim().min(1, 'type something to search for').max(200, 'is too long (at most 200 characters)'),
  limit: z.coerce.number().int().min(1).max(50).default(10),
});
export type FindInput = z.input<typeof FindInput>;

import { z } from 'zod';
import { MATCH_OPERATORS } from '../../domain/enums.js';
import { Id, text } from '../schemas.js';

const Name = text().trim().min(1, 'name must not be empty').max(200, 'name is at most 200 characters');
const MatchOperator = z.enum(MATCH_OPERATORS, { error: 'must be "OR" or "AND"' });
// Tag slugs as the venue writes them; normalised so "Politics " and "politics" are one tag.
const TagSlug = text()
  .trim()
  .toLowerCase()
  .min(1, 'tag slug must not be empty')
  .max(100, 'tag slug is at most 100 characters')
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'tag slug may hold only letters, digits and hyphens');
const Phrase = text().trim().min(1, 'keyphrase must not be empty').max(200, 'keyphrase is at most 200 characters');

export const Keyphrase = z.strictObject({ text: Phrase, include: z.boolean().default(true) });
export const TagTerm = z.strictObject({ tagSlug: TagSlug, include: z.boolean().default(true) });

export const QueryInput = z.strictObject({
  tags: z.array(TagTerm).optional(),
  keyphrases: z.array(Keyphrase).optional(),
  searchMatchOperator: MatchOperator.default('OR'),
});

export const EventSelection = z.strictObject({
  autoFetch: z.boolean().default(true),
  markets: z.array(Id).max(1000).optional(),
});
export type EventSelection = z.input<typeof EventSelection>;

export const CreateWatchlistInput = z.strictObject({
  name: Name,
  query: QueryInput.default({ searchMatchOperator: 'OR' }),
  automaticallyAddMatchingEvents: z.boolean().default(false),
  events: z.record(Id, EventSelection).optional(),
});
export type CreateWatchlistInput = z.input<typeof CreateWatchlistInput>;

export const UpdateWatchlistInput = z
  .strictObject({ name: Name.optional(), automaticallyAddMatchingEvents: z.boolean().optional() })
  .refine((v) => v.name !== undefined || v.automaticallyAddMatchingEvents !== undefined, {
    message: 'give name, automaticallyAddMatchingEvents or both',
  });
export type UpdateWatchlistInput = z.input<typeof UpdateWatchlistInput>;

const TagsV2 = z.strictObject({
  includeTags: z.array(TagSlug).default([]),
  excludeTags: z.array(TagSlug).default([]),
  matchOperator: MatchOperator.default('OR'),
});
const TagsV1 = z.strictObject({ tags: z.array(TagTerm), searchMatchOperator: MatchOperator.default('OR') });

/** Both bodies of `PATCH …/query/tags`, turned into the stored form. */
export const UpdateTagsInput = z.union([TagsV2, TagsV1]).transform((body) =>
  'tags' in body
    ? { tags: body.tags, operator: body.searchMatchOperator }
    : {
        tags: [
          ...body.includeTags.map((tagSlug) => ({ tagSlug, include: true })),
          ...body.excludeTags.map((tagSlug) => ({ tagSlug, include: false })),
        ],
        operator: body.matchOperator,
      },
);
export type UpdateTagsInput = z.input<typeof UpdateTagsInput>;

export const UpdateKeyphrasesInput = z.strictObject({
  keyphrases: z.array(Keyphrase),
  matchOperator: MatchOperator.default('OR'),
});
export type UpdateKeyphrasesInput = z.input<typeof UpdateKeyphrasesInput>;

export const DeleteWatchlistInput = z.strictObject({ watchListId: Id });
export type DeleteWatchlistInput = z.input<typeof DeleteWatchlistInput>;
export const WatchlistIdInput = z.object({ watchlistId: Id });
export type WatchlistIdInput = z.input<typeof WatchlistIdInput>;
/** The path of `PUT` and `DELETE /watchlists/{watchlistId}/events/{eventId}`. */
export const WatchlistEventInput = z.object({ watchlistId: Id, eventId: Id });
export type WatchlistEventInput = z.input<typeof WatchlistEventInput>;

// The chat use cases: a watchlist by its id or name, an event by its link, slug or id.
export const WatchlistRef = text().trim().min(1, 'give a watchlist id or name').max(200, 'watchlist id or name is too long');
export const WatchEventInput = z.object({ event: text(), watchlist: WatchlistRef.optional() });
export type WatchEventInput = z.input<typeof WatchEventInput>;
export const UnwatchEventInput = z.object({ event: text() });
export type UnwatchEventInput = z.input<typeof UnwatchEventInput>;
export const WatchlistRefInput = z.object({ watchlist: WatchlistRef });
export type WatchlistRefInput = z.input<typeof WatchlistRefInput>;
export const RenameWatchlistByRefInput = z.object({ watchlist: WatchlistRef, name: text() });
export type RenameWatchlistByRefInput = z.input<typeof RenameWatchlistByRefInput>;

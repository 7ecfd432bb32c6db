import { unparsed } from '../../services/validate.js';
import { z } from 'zod';
import * as search from '../../services/search/index.js';
import { MARKET_CHART_PATH } from '../../domain/links.js';
import { defineRoutes, RawBody } from '../route.js';

const tag = 'Search';

const SearchResults = z
  .array(
    z.strictObject({
      id: z.string(),
      title: z.string(),
      slug: z.string(),
      image: z.string(),
      type: z.literal('event'),
      markets: z.array(
        z.strictObject({
          id: z.string(),
          image: z.string(),
          question: z.string(),
          outcomes: z.string(),
          outcomePrices: z.string(),
          serviceSVGLink: z.string(),
        }),
      ),
    }),
  )
  .meta({ id: 'SearchResults' });

const PriceHistory = z
  .strictObject({
    marketId: z.string(),
    question: z.string(),
    current: z.number().nullable(),
    points: z.array(z.strictObject({ at: z.string(), price: z.number() })),
  })
  .meta({ id: 'PriceHistory' });

const CurrentPrices = z
  .strictObject({ prices: z.array(z.strictObject({ marketId: z.string(), question: z.string(), current: z.number().nullable() })) })
  .meta({ id: 'CurrentPrices' });

const CHART_HEADERS = { 'Cross-Origin-Resource-Policy': 'cross-origin', 'Cache-Control': 'public, max-age=60' };

const LimitQuery = z.object({ limit: z.string().optional().meta({ description: 'Results, 1 to 200 (default 50)' }) });

export const catalogRoutes = defineRoutes([
  {
    method: 'post',
    path: '/search',
    summary: 'Search open events by keyphrases',
    tag,
    auth: 'public',
    body: search.SearchByKeyphrasesInput,
    query: LimitQuery,
    response: SearchResults,
    errors: [400],
    handler: (ctx, { body, query }) => search.searchByKeyphrases({ ctx, input: unparsed(body), query: unparsed(query) }),
  },
  {
    method: 'post',
    path: '/search/tag-slugs',
    summary: 'Search open events by tag slugs',
    tag,
    auth: 'public',
    body: search.SearchByTagsInput,
    query: LimitQuery,
    response: SearchResults,
    errors: [400],
    handler: (ctx, { body, query }) => search.searchByTags({ ctx, input: unparsed(body), query: unparsed(query) }),
  },
  {
    method: 'get',
    path: '/catalog/search',
    summary: 'Find open events by words, as people type them: any order, word starts, small typos; best match, then volume',
    tag,
    auth: 'public',
    query: z.object({
      q: z.string().meta({ description: 'Words to find, e.g. "bitc aug" (at most 200 characters)' }),
      limit: z.string().optional().meta({ description: 'Results, 1 to 50 (default 10)' }),
    }),
    response: SearchResults,
    errors: [400],
    handler: (ctx, { query }) => search.findEvents({ ctx, input: unparsed(query) }),
  },
  {
    method: 'get',
    path: '/markets/prices',
    summary: 'The displayed price now (first outcome) of up to 100 markets at once; unknown ids are left out',
    tag,
    auth: 'public',
    query: z.object({ ids: z.string().meta({ description: 'Market ids, comma separated (at most 100)' }) }),
    response: CurrentPrices,
    errors: [400],
    handler: async (ctx, { query }) => ({ prices: await search.currentPrices({ ctx, input: unparsed(query) }) }),
  },
  {
    method: 'get',
    path: '/markets/{marketId}/prices',
    summary: "The market's displayed price (first outcome) at the end of each minute of the last `minutes`, and now",
    tag,
    auth: 'public',
    query: z.object({ minutes: z.string().optional().meta({ description: 'How far back, 1 to 10080 (default 60)' }) }),
    response: PriceHistory,
    errors: [400, 404],
    handler: (ctx, { params, query }) => search.marketPriceHistory({ ctx, input: { marketId: params.marketId, ...query } }),
  },
  {
    method: 'get',
    path: MARKET_CHART_PATH,
    summary: "A sparkline of the market's price over the last 24 h (image/svg+xml)",
    tag,
    auth: 'public',
    response: z.string(),
    errors: [404],
    // Embedded by other sites (serviceSVGLink): cross-origin readable, briefly cacheable.
    handler: async (ctx, { params }) =>
      new RawBody('image/svg+xml', await search.marketChartSvg({ ctx, input: { marketId: params.marketId } }), CHART_HEADERS),
  },
]);

import { unparsed } from '../../services/validate.js';
import * as watchlists from '../../services/watchlists/index.js';
import { Empty, WatchlistList, WatchlistOne } from '../response-schemas.js';
import { defineRoutes } from '../route.js';

const tag = 'Watchlists';

export const watchlistRoutes = defineRoutes([
  {
    method: 'post',
    path: '/watchlists',
    summary: 'Create a watchlist from tags or keyphrases, optionally with events',
    tag,
    auth: 'bearer',
    body: watchlists.CreateWatchlistInput,
    status: 201,
    response: WatchlistOne,
    errors: [400, 403],
    handler: async (ctx, { body }) => ({ watchList: await watchlists.createWatchlist({ ctx, input: unparsed(body) }) }),
  },
  {
    method: 'get',
    path: '/watchlists',
    summary: "List the caller's watchlists, newest first",
    tag,
    auth: 'bearer',
    response: WatchlistList,
    handler: async (ctx) => ({ watchLists: await watchlists.listWatchlists({ ctx, input: {} }) }),
  },
  {
    method: 'get',
    path: '/watchlists/{watchlistId}',
    summary: 'Get one watchlist (as a one-element list)',
    tag,
    auth: 'bearer',
    response: WatchlistList,
    errors: [404],
    handler: async (ctx, { params }) => ({
      watchLists: await watchlists.listWatchlists({ ctx, input: { watchlistId: params.watchlistId } }),
    }),
  },
  {
    method: 'patch',
    path: '/watchlists/{watchlistId}',
    summary: 'Rename a watchlist or switch automatic adding of matching events',
    tag,
    auth: 'bearer',
    body: watchlists.UpdateWatchlistInput,
    response: WatchlistOne,
    errors: [400, 404],
    handler: async (ctx, { params, body }) => ({
      watchList: await watchlists.updateWatchlist({ ctx, input: { watchlistId: params.watchlistId!, body: unparsed(body) } }),
    }),
  },
  {
    method: 'patch',
    path: '/watchlists/{watchlistId}/query/tags',
    summary: 'Replace the tag query (V2 body recommended; V1 deprecated)',
    tag,
    auth: 'bearer',
    body: watchlists.UpdateTagsInput,
    response: Empty,
    errors: [400, 404, 409],
    handler: async (ctx, { params, body }) => {
      await watchlists.updateWatchlistTags({ ctx, input: { watchlistId: params.watchlistId!, body: unparsed(body) } });
      return {};
    },
  },
  {
    method: 'patch',
    path: '/watchlists/{watchlistId}/query/keyphrases',
    summary: 'Replace the keyphrase query',
    tag,
    auth: 'bearer',
    body: watchlists.UpdateKeyphrasesInput,
    response: Empty,
    errors: [400, 404, 409],
    handler: async (ctx, { params, body }) => {
      await watchlists.updateWatchlistKeyphrases({ ctx, input: { watchlistId: params.watchlistId!, body: unparsed(body) } });
      return {};
    },
  },
  {
    method: 'put',
    path: '/watchlists/{watchlistId}/events/{eventId}',
    summary: 'Add an event to the watchlist, or replace its market selection',
    tag,
    auth: 'bearer',
    body: watchlists.EventSelection,
    response: WatchlistOne,
    errors: [400, 403, 404],
    handler: async (ctx, { params, body }) => ({
      watchList: await watchlists.putWatchlistEvent({
        ctx,
        input: { watchlistId: params.watchlistId!, eventId: params.eventId!, body: unparsed(body) },
      }),
    }),
  },
  {
    method: 'delete',
    path: '/watchlists/{watchlistId}/events/{eventId}',
    summary: 'Remove an event from the watchlist',
    tag,
    auth: 'bearer',
    response: WatchlistOne,
    errors: [404],
    handler: async (ctx, { params }) => ({
      watchList: await watchlists.removeWatchlistEvent({
        ctx,
        input: { watchlistId: params.watchlistId!, eventId: params.eventId! },
      }),
    }),
  },
  {
    method: 'post',
    path: '/watchlists/delete',
    summary: 'Delete a watchlist permanently, with its subscriptions',
    tag,
    auth: 'bearer',
    body: watchlists.DeleteWatchlistInput,
    response: Empty,
    errors: [400, 404],
    handler: async (ctx, { body }) => {
      await watchlists.deleteWatchlist({ ctx, input: unparsed(body) });
      return {};
    },
  },
]);

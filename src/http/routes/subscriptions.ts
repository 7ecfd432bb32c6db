import { unparsed } from '../../services/validate.js';
import * as subs from '../../services/subscriptions/index.js';
import { ChannelHealthList, ChannelHealthOne, DryRun, Empty, SubscriptionList, SubscriptionOne } from '../response-schemas.js';
import { defineRoutes } from '../route.js';

const tag = 'Subscriptions';

export const subscriptionRoutes = defineRoutes([
  {
    method: 'post',
    path: '/subscriptions',
    summary: 'Create a subscription (alert rule) on a watchlist, event or market',
    tag,
    auth: 'bearer',
    body: subs.CreateSubscriptionInput,
    status: 201,
    response: SubscriptionOne,
    errors: [400, 403, 404],
    handler: async (ctx, { body }) => ({ subscription: await subs.createSubscription({ ctx, input: unparsed(body) }) }),
  },
  {
    method: 'post',
    path: '/subscriptions/dry-run',
    summary: 'How a subscription with this body would have fired over the last 7 days of prices (nothing is stored)',
    tag,
    auth: 'bearer',
    body: subs.CreateSubscriptionInput,
    response: DryRun,
    errors: [400, 404],
    handler: async (ctx, { body }) => subs.dryRunSubscription({ ctx, input: unparsed(body) }),
  },
  {
    method: 'get',
    path: '/subscriptions',
    summary: "List all of the caller's subscriptions",
    tag,
    auth: 'bearer',
    response: SubscriptionList,
    handler: async (ctx) => ({ subscriptions: await subs.listSubscriptions({ ctx, input: {} }) }),
  },
  {
    method: 'get',
    path: '/subscriptions/{watchlistId}',
    summary: "List one watchlist's subscriptions",
    tag,
    auth: 'bearer',
    response: SubscriptionList,
    errors: [404],
    handler: async (ctx, { params }) => ({
      subscriptions: await subs.listSubscriptions({ ctx, input: { watchlistId: params.watchlistId } }),
    }),
  },
  {
    method: 'get',
    path: '/subscription/{subscriptionId}',
    summary: 'Get one subscription',
    tag,
    auth: 'bearer',
    response: SubscriptionOne,
    errors: [404],
    handler: async (ctx, { params }) => ({ subscription: await subs.getSubscription({ ctx, input: unparsed(params) }) }),
  },
  {
    method: 'patch',
    path: '/subscription/{subscriptionId}',
    summary: 'Update the rule, trigger settings, channels or expiry',
    tag,
    auth: 'bearer',
    body: subs.UpdateSubscriptionInput,
    response: SubscriptionOne,
    errors: [400, 403, 404],
    handler: async (ctx, { params, body }) => ({
      subscription: await subs.updateSubscription({ ctx, input: { subscriptionId: params.subscriptionId!, body: unparsed(body) } }),
    }),
  },
  {
    method: 'post',
    path: '/subscription/{subscriptionId}/pause',
    summary: 'Pause a subscription',
    tag,
    auth: 'bearer',
    response: SubscriptionOne,
    errors: [404],
    handler: async (ctx, { params }) => ({ subscription: await subs.pauseSubscription({ ctx, input: unparsed(params) }) }),
  },
  {
    method: 'post',
    path: '/subscription/{subscriptionId}/restart',
    summary: 'Restart (re-arm) a subscription',
    tag,
    auth: 'bearer',
    response: SubscriptionOne,
    errors: [404, 409],
    handler: async (ctx, { params }) => ({ subscription: await subs.restartSubscription({ ctx, input: unparsed(params) }) }),
  },
  {
    method: 'get',
    path: '/subscription/{subscriptionId}/channels/health',
    summary: "Each channel's endpoint health: healthy, failing (since when, how many notifications, last error) or disabled (and why)",
    tag,
    auth: 'bearer',
    response: ChannelHealthList,
    errors: [404],
    handler: async (ctx, { params }) => ({ channels: await subs.getChannelHealth({ ctx, input: params }) }),
  },
  {
    method: 'post',
    path: '/subscription/{subscriptionId}/channels/{position}/enable',
    summary: "Turn a channel disabled by endpoint health back on (position: the channel's 0-based index in channels)",
    tag,
    auth: 'bearer',
    response: ChannelHealthOne,
    errors: [400, 404],
    handler: async (ctx, { params }) => ({ channel: await subs.enableChannel({ ctx, input: params }) }),
  },
  {
    method: 'delete',
    path: '/subscription/{subscriptionId}',
    summary: 'Delete a subscription',
    tag,
    auth: 'bearer',
    response: Empty,
    errors: [404],
    handler: async (ctx, { params }) => {
      await subs.deleteSubscription({ ctx, input: unparsed(params) });
      return {};
    },
  },
]);

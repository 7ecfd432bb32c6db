import { unparsed } from '../../services/validate.js';
import { z } from 'zod';
import * as demo from '../../services/demo/index.js';
import { defineRoutes } from '../route.js';

const tag = 'Demo';

const DemoWebhook = z
  .strictObject({ _id: z.string(), url: z.string(), active: z.boolean(), createdAt: z.string() })
  .meta({ id: 'DemoWebhook' });

const DemoMarket = z.strictObject({
  id: z.string(),
  question: z.string(),
  slug: z.string(),
  outcomes: z.string(),
  outcomePrices: z.string(),
  active: z.boolean(),
  closed: z.boolean(),
  volume: z.number(),
});

const DemoEvents = z
  .strictObject({
    events: z.array(
      z.strictObject({
        id: z.string(),
        title: z.string(),
        slug: z.string(),
        active: z.boolean(),
        closed: z.boolean(),
        volume: z.number(),
        startDate: z.string(),
        endDate: z.string(),
        markets: z.array(DemoMarket),
      }),
    ),
    page: z.number(),
    limit: z.number(),
    totalCount: z.number(),
    totalPages: z.number(),
  })
  .meta({ id: 'DemoEvents' });

const Window = z.strictObject({
  volume: z.number(),
  datapoints: z.number(),
  startVolume: z.number().nullable(),
  endVolume: z.number().nullable(),
});

const VolumeStats = z
  .strictObject({
    marketId: z.string(),
    totalVolume: z.number().nullable(),
    latestLiquidity: z.number().nullable(),
    windows: z.strictObject({ '1h': Window, '4h': Window, '12h': Window, '24h': Window }),
    liquidityToVolumeRatio: z.number().nullable(),
    turnoverRatio: z.number().nullable(),
    datapoints: z.number(),
  })
  .meta({ id: 'VolumeStats' });

const PageQuery = z.object({
  page: z.string().optional().meta({ description: 'Page number, from 1 (default 1)' }),
  limit: z.string().optional().meta({ description: 'Events per page, 1 to 500 (default 500)' }),
});

export const demoRoutes = defineRoutes([
  {
    method: 'post',
    path: '/demo/webhooks',
    summary: 'Register a demo webhook (catalog opens and closes)',
    tag,
    auth: 'bearer',
    body: demo.CreateDemoWebhookInput,
    status: 201,
    response: DemoWebhook,
    errors: [400],
    handler: (ctx, { body }) => demo.createDemoWebhook({ ctx, input: unparsed(body) }),
  },
  {
    method: 'get',
    path: '/demo/webhooks',
    summary: "This account's active demo webhooks",
    tag,
    auth: 'bearer',
    response: z.strictObject({ webhooks: z.array(DemoWebhook) }),
    handler: async (ctx) => ({ webhooks: await demo.listDemoWebhooks({ ctx }) }),
  },
  {
    method: 'delete',
    path: '/demo/webhooks/{id}',
    summary: 'Soft-delete a demo webhook',
    tag,
    auth: 'bearer',
    response: z.strictObject({ message: z.string() }),
    errors: [404],
    handler: (ctx, { params }) => demo.deleteDemoWebhook({ ctx, input: { id: params.id } }),
  },
  {
    method: 'get',
    path: '/demo/events',
    summary: 'Catalog events, paginated',
    tag,
    auth: 'bearer',
    query: PageQuery,
    response: DemoEvents,
    errors: [400],
    handler: (ctx, { query }) => demo.listDemoEvents({ ctx, input: query }),
  },
  {
    method: 'get',
    path: '/demo/markets/{marketId}/volume-stats',
    summary: "Volume and liquidity statistics from the market's samples",
    tag,
    auth: 'bearer',
    response: VolumeStats,
    errors: [404],
    handler: (ctx, { params }) => demo.getVolumeStats({ ctx, input: { marketId: params.marketId } }),
  },
]);

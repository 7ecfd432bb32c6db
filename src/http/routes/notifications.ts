import { unparsed } from '../../services/validate.js';
import { z } from 'zod';
import { CHANNEL_STATUSES, CHANNEL_TYPES } from '../../domain/enums.js';
import * as inbox from '../../services/inbox/index.js';
import { Empty } from '../response-schemas.js';
import { defineRoutes } from '../route.js';

const tag = 'Notifications';

const Notification = z
  .strictObject({
    id: z.string(),
    createdAt: z.string(),
    readAt: z.string().nullable(),
    payload: z.record(z.string(), z.unknown()),
    snoozedUntil: z.string().optional().meta({ description: 'Only when the subscription was snoozed as this fired: no channel but the inbox was sent it' }),
  })
  .meta({ id: 'Notification' });
export const NotificationList = z.strictObject({ notifications: z.array(Notification), nextBefore: z.string().nullable() });

const Delivery = z
  .strictObject({
    id: z.string(),
    channel: z.enum(CHANNEL_TYPES),
    status: z.enum(CHANNEL_STATUSES),
    attempts: z.array(
      z.strictObject({ at: z.string(), statusCode: z.number().nullable(), error: z.string().nullable(), durationMs: z.number() }),
    ),
  })
  .meta({ id: 'Delivery' });
export const DeliveryList = z.strictObject({ deliveries: z.array(Delivery) });

const HistoryEntry = Notification.extend({ detectedAt: z.string(), deliveries: z.array(Delivery) }).meta({ id: 'HistoryEntry' });
export const SubscriptionHistory = z.strictObject({ notifications: z.array(HistoryEntry), nextBefore: z.string().nullable() });

export const notificationRoutes = defineRoutes([
  {
    method: 'get',
    path: '/notifications',
    summary: 'The in-app inbox, newest first',
    tag,
    auth: 'bearer',
    query: z.object({ unread: z.enum(['true', 'false']).optional(), limit: z.string().optional(), before: z.string().optional() }),
    response: NotificationList,
    errors: [400],
    handler: (ctx, { query }) => inbox.listNotifications({ ctx, input: query }),
  },
  {
    method: 'post',
    path: '/notifications/{notificationId}/read',
    summary: 'Mark an inbox entry read (its In App channel status becomes READ)',
    tag,
    auth: 'bearer',
    response: Empty,
    errors: [404],
    handler: (ctx, { params }) => inbox.markNotificationRead({ ctx, input: unparsed(params) }),
  },
  {
    method: 'get',
    path: '/notifications/{notificationId}/deliveries',
    summary: "One notification's deliveries per channel, with every attempt",
    tag,
    auth: 'bearer',
    response: DeliveryList,
    errors: [404],
    handler: async (ctx, { params }) => ({ deliveries: await inbox.listDeliveries({ ctx, input: unparsed(params) }) }),
  },
  {
    method: 'get',
    path: '/subscription/{subscriptionId}/notifications',
    summary: "A rule's history, newest first: each firing with every channel's delivery and attempts",
    tag,
    auth: 'bearer',
    query: z.object({ limit: z.string().optional(), before: z.string().optional() }),
    response: SubscriptionHistory,
    errors: [400, 404],
    handler: (ctx, { params, query }) => inbox.listSubscriptionHistory({ ctx, input: { ...query, subscriptionId: params.subscriptionId } }),
  },
  {
    method: 'post',
    path: '/notifications/{notificationId}/redeliver',
    summary: 'Queue the failed deliveries of a notification again',
    tag,
    auth: 'bearer',
    response: Empty,
    errors: [404, 409],
    handler: (ctx, { params }) => inbox.redeliverNotification({ ctx, input: unparsed(params) }),
  },
]);

import type { Route, StreamRoute } from '../route.js';
import { accountRoutes } from './account.js';
import { channelRoutes } from './channels.js';
import { demoRoutes } from './demo.js';
import { notificationRoutes } from './notifications.js';
import { catalogRoutes } from './search.js';
import { sessionRoutes } from './sessions.js';
import { subscriptionRoutes } from './subscriptions.js';
import { watchlistRoutes } from './watchlists.js';

/** The parts of the table that hold state of their own, built once per app. */
export interface LiveRoutes {
  notificationStream: StreamRoute;
}

/**
 * Every route of the API, in one table: createApp mounts exactly this, and the OpenAPI document
 * describes exactly this. A new route group is added here and nowhere else.
 */
export function routeTable(live: LiveRoutes): Route[] {
  return [
    live.notificationStream,
    ...watchlistRoutes,
    ...subscriptionRoutes,
    ...channelRoutes,
    ...accountRoutes,
    ...sessionRoutes,
    ...catalogRoutes,
    ...demoRoutes,
    ...notificationRoutes,
  ];
}

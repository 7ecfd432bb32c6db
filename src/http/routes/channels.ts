import * as channels from '../../services/channels/index.js';
import { Channel } from '../../services/subscriptions/index.js';
import { TestSendResult } from '../response-schemas.js';
import { defineRoutes } from '../route.js';

export const channelRoutes = defineRoutes([
  {
    method: 'post',
    path: '/channels/test',
    summary: 'Send a sample alert, marked as a test, to one channel and report how it went (nothing is stored)',
    tag: 'Channels',
    auth: 'bearer',
    body: Channel,
    response: TestSendResult,
    errors: [400],
    handler: (ctx, { body }) => channels.testChannel({ ctx, input: body }),
  },
]);

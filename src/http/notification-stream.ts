import type { Request, Response } from 'express';
import type { Database, Unlisten } from '../db/client.js';
import { DELIVERY_DUE_CHANNEL } from '../db/coordination.js';
import type { Logger } from '../logger.js';
import type { ServiceContext } from '../services/context.js';
import { findNotification, listNotificationsAfter, StreamResumeInput, type NotificationView } from '../services/inbox/index.js';
import { parseInput } from '../services/validate.js';
import type { StreamRoute } from './route.js';

export interface NotificationStreamOptions {
  database: Database;
  logger: Logger;
  heartbeatMs?: number;
}

export interface NotificationStream {
  route: StreamRoute;
  /** Ends every open stream and stops listening. */
  close(): Promise<void>;
}

interface Client {
  accountId: string;
  res: Response;
  sent: Set<string>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_REMEMBERED = 1000;

/** GET /notifications/stream: each new notification of the account as Server-Sent Events. */
export function createNotificationStream({ database, logger, heartbeatMs = 15_000 }: NotificationStreamOptions): NotificationStream {
  const clients = new Set<Client>();
  let listening: Promise<Unlisten> | undefined;
  let noticesHandled: Promise<void> = Promise.resolve();

  async function onNotice(payload: string) {
    // Redelivery notices (and anything else) are not new notifications.
    if (!UUID.test(payload) || clients.size === 0) return;
    try {
      const found = await findNotification({ deps: { database }, notificationId: payload });
      if (!found) return;
      const { accountId, ...view } = found;
      for (const client of clients) if (client.accountId === accountId) send(client, view);
    } catch (err) {
      logger.error({ err }, 'notification stream lookup failed');
    }
  }

  async function handler(ctx: ServiceContext, req: Request, res: Response) {
    const { lastEventId } = parseInput(StreamResumeInput, { lastEventId: req.header('last-event-id') || undefined });
    listening ??= database.listen(DELIVERY_DUE_CHANNEL, (p) => {
      // One lookup at a time: concurrent lookups finish in any order, and a stream must send in
      // notice (commit) order, or a client resuming from the later id would miss the earlier one.
      noticesHandled = noticesHandled.then(() => onNotice(p));
    });
    await listening;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write(': connected\n\n');
    const client: Client = { accountId: ctx.account.id, res, sent: new Set() };
    clients.add(client); // before the replay, so nothing written meanwhile is missed
    const heartbeat = setInterval(() => res.write(': ping\n\n'), heartbeatMs);
    req.on('close', () => {
      clearInterval(heartbeat);
      clients.delete(client);
    });
    if (!lastEventId) return;
    try {
      for (const view of await listNotificationsAfter({ ctx, afterId: lastEventId })) send(client, view);
    } catch (err) {
      // The answer has started: end the stream and let the client reconnect with Last-Event-ID.
      ctx.logger.error({ err }, 'notification stream replay failed');
      res.end();
    }
  }

  function send(client: Client, view: NotificationView) {
    if (client.sent.has(view.id) || client.res.writableEnded) return;
    client.sent.add(view.id);
    if (client.sent.size > MAX_REMEMBERED) client.sent.delete(client.sent.values().next().value!);
    const data = JSON.stringify({ id: view.id, createdAt: view.createdAt, payload: view.payload });
    client.res.write(`id: ${view.id}\nevent: notification\ndata: ${data}\n\n`);
  }

  return {
    route: { path: '/notifications/stream', handler },
    async close() {
      for (const client of clients) client.res.end();
      clients.clear();
      const unlisten = await listening?.catch(() => undefined);
      await unlisten?.();
    },
  };
}

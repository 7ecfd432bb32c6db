import type { Request, Response } from 'express';
import { z } from 'zod';
import type { Database, Unlisten } from '../db/client.js';
import { DELIVERY_DUE_CHANNEL } from '../db/coordination.js';
import type { Logger } from '../logger.js';
import type { ServiceContext } from '../services/context.js';
import { findNotification, listNotificationsAfter, StreamResumeInput, type NotificationView } from '../services/inbox/index.js';
import { liveTokenIds } from '../services/tokens/index.js';
import { parseInput } from '../services/validate.js';
import type { StreamRoute } from './route.js';

export interface NotificationStreamOptions {
  database: Database;
  logger: Logger;
  heartbeatMs?: number;
  /** How often open streams' tokens are checked; a revoked or expired one ends its streams. */
  tokenCheckMs?: number;
  /** The clock tokens expire by (tests move it instead of waiting for an expiry). */
  now?: () => number;
}

export interface NotificationStream {
  route: StreamRoute;
  /** Ends every open stream and stops listening. */
  close(): Promise<void>;
}

interface Client {
  accountId: string;
  tokenId: string | undefined;
  res: Response;
  sent: Set<string>;
  /** Live notifications that arrived while the replay after Last-Event-ID ran: sent after it. */
  held?: NotificationView[];
  /** The Last-Event-ID it resumed from: that one and earlier ones (still announced late) are not sent. */
  after?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_REMEMBERED = 1000;
/** Retry-After of a refused stream: a slot frees when the client closes one, which we cannot predict. */
const STREAM_RETRY_AFTER_S = 30;

/** GET /notifications/stream: each new notification of the account as Server-Sent Events. */
export function createNotificationStream({
  database,
  logger,
  heartbeatMs = 15_000,
  tokenCheckMs = 5000,
  now = Date.now,
}: NotificationStreamOptions): NotificationStream {
  const clients = new Set<Client>();
  /** Streams per account, counted from the moment one is admitted (before any await). */
  const openPerAccount = new Map<string, number>();
  let tokenCheck: NodeJS.Timeout | undefined;
  let checkingTokens = false;
  let listening: Promise<Unlisten> | undefined;
  let noticesHandled: Promise<void> = Promise.resolve();

  async function onNotice(payload: string) {
    // A notice names new notifications, comma separated; redelivery notices (and anything else)
    // are not new notifications.
    for (const notificationId of payload.split(',')) {
      if (clients.size === 0) return;
      if (!UUID.test(notificationId)) continue;
      try {
        const found = await findNotification({ deps: { database }, notificationId });
        if (!found) continue;
        const { accountId, ...view } = found;
        for (const client of clients) if (client.accountId === accountId) (client.held ? client.held.push(view) : send(client, view));
      } catch (err) {
        logger.error({ err }, 'notification stream lookup failed');
      }
    }
  }

  // One query for all open streams, however many: a revoked or expired token loses its streams
  // within one period, so the cost does not grow with the number of connections.
  async function checkTokens() {
    if (checkingTokens || clients.size === 0) return;
    checkingTokens = true;
    try {
      const tokenIds = [...new Set([...clients].flatMap((c) => (c.tokenId ? [c.tokenId] : [])))];
      const live = await liveTokenIds({ database }, tokenIds, new Date(now()));
      for (const client of clients) {
        if (client.tokenId && !live.has(client.tokenId)) {
          client.res.end(': token revoked or expired\n\n');
          drop(client);
        }
      }
    } catch (err) {
      logger.error({ err }, 'notification stream token check failed');
    } finally {
      checkingTokens = false;
    }
  }

  function drop(client: Client) {
    if (!clients.delete(client)) return;
    if (clients.size === 0 && tokenCheck) {
      clearInterval(tokenCheck);
      tokenCheck = undefined;
    }
  }

  /** Counts the stream against the account's cap; false when the account is at it. */
  function admit(accountId: string, limit: number, res: Response): boolean {
    const open = openPerAccount.get(accountId) ?? 0;
    if (open >= limit) return false;
    openPerAccount.set(accountId, open + 1);
    res.once('close', () => {
      const left = (openPerAccount.get(accountId) ?? 1) - 1;
      if (left > 0) openPerAccount.set(accountId, left);
      else openPerAccount.delete(accountId);
    });
    return true;
  }

  async function handler(ctx: ServiceContext, req: Request, res: Response) {
    const { lastEventId } = parseInput(StreamResumeInput, { lastEventId: req.header('last-event-id') || undefined });
    const limit = ctx.config.MAX_STREAMS_PER_ACCOUNT;
    if (!admit(ctx.account.id, limit, res)) {
      res
        .status(429)
        .set('Retry-After', String(STREAM_RETRY_AFTER_S))
        .json({ error: `Too many open streams: an account may keep ${limit} open at once (MAX_STREAMS_PER_ACCOUNT); close one first` });
      return;
    }
    listening ??= database.listen(DELIVERY_DUE_CHANNEL, (p) => {
      // One lookup at a time: concurrent lookups finish in any order, and a stream must send in
      // notice (commit) order, or a client resuming from the later id would miss the earlier one.
      noticesHandled = noticesHandled.then(() => onNotice(p));
    });
    await listening;
    if (res.destroyed) return; // the client left while we waited
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write(': connected\n\n');
    const client: Client = { accountId: ctx.account.id, tokenId: ctx.apiTokenId, res, sent: new Set(), ...(lastEventId ? { held: [], after: lastEventId } : {}) };
    clients.add(client); // before the replay, so nothing written meanwhile is missed
    if (!tokenCheck) {
      tokenCheck = setInterval(() => void checkTokens(), tokenCheckMs);
      tokenCheck.unref();
    }
    const heartbeat = setInterval(() => res.write(': ping\n\n'), heartbeatMs);
    res.once('close', () => {
      clearInterval(heartbeat);
      drop(client);
    });
    if (!lastEventId) return;
    try {
      for (const view of await listNotificationsAfter({ ctx, afterId: lastEventId })) send(client, view);
      // In id (commit) order after the replay: a client resuming from a later id must not skip one.
      const held = client.held!.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
      client.held = undefined;
      for (const view of held) send(client, view);
    } catch (err) {
      // The answer has started: end the stream and let the client reconnect with Last-Event-ID.
      ctx.logger.error({ err }, 'notification stream replay failed');
      res.end();
    }
  }

  function send(client: Client, view: NotificationView) {
    if (client.sent.has(view.id) || client.res.writableEnded) return;
    if (client.after !== undefined && view.id <= client.after) return; // ids are time-ordered uuid v7
    client.sent.add(view.id);
    if (client.sent.size > MAX_REMEMBERED) client.sent.delete(client.sent.values().next().value!);
    const data = JSON.stringify({ id: view.id, createdAt: view.createdAt, payload: view.payload });
    client.res.write(`id: ${view.id}\nevent: notification\ndata: ${data}\n\n`);
  }

  return {
    route: {
      method: 'get',
      path: '/notifications/stream',
      summary: "The account's new notifications as Server-Sent Events, resumable with Last-Event-ID",
      tag: 'Notifications',
      auth: 'bearer',
      events:
        'Each new notification as `id: <notification id>`, `event: notification`, `data: {"id", "createdAt", "payload"}` ' +
        '(payload: a price_notification or event_status_notification, see webhooks); comment lines keep the connection open.',
      headers: z.object({
        'last-event-id': z.string().optional().meta({ description: 'The last notification id received: the ones after it are sent first' }),
      }),
      errors: [400],
      stream: handler,
    },
    async close() {
      for (const client of clients) client.res.end();
      clients.clear();
      clearInterval(tokenCheck);
      tokenCheck = undefined;
      const unlisten = await listening?.catch(() => undefined);
      await unlisten?.();
    },
  };
}

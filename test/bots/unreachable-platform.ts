import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A chat platform that is down or refuses us, on 127.0.0.1: what the bots must survive. */
export interface BadPlatform {
  url: string;
  close(): Promise<void>;
}

/** Nothing listens: connections are refused. */
export async function closedPort(): Promise<BadPlatform> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${port}`, close: async () => {} };
}

/** Accepts connections and never answers. */
export async function hangingServer(): Promise<BadPlatform> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Answers every request 401, as Telegram's Bot API and Discord's REST API do for a wrong token. */
export async function refusingServer(): Promise<BadPlatform> {
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.statusCode = 401;
      res.setHeader('content-type', 'application/json');
      // Both platforms' error shapes in one body: Telegram reads ok/error_code, Discord message/code.
      res.end(JSON.stringify({ ok: false, error_code: 401, description: 'Unauthorized', message: '401: Unauthorized', code: 0 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A Bot API where another deployment already polls with this token: everything works but
 * getUpdates, which Telegram then answers 409 Conflict. Counts the calls per method.
 */
export async function conflictingBotApi(): Promise<BadPlatform & { count(method: string): number }> {
  const counts = new Map<string, number>();
  const me = { id: 42, is_bot: true, first_name: 'Oddswatch', username: 'OddswatchTestBot', can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false };
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const method = /\/(\w+)$/.exec(req.url ?? '')?.[1] ?? '';
      counts.set(method, (counts.get(method) ?? 0) + 1);
      res.setHeader('content-type', 'application/json');
      if (method === 'getUpdates') {
        res.statusCode = 409;
        return res.end(JSON.stringify({ ok: false, error_code: 409, description: 'Conflict: terminated by other getUpdates request' }));
      }
      res.end(JSON.stringify({ ok: true, result: method === 'getMe' ? me : true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    count: (method) => counts.get(method) ?? 0,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface FakeDiscordGateway {
  /** The REST base without /v10 (DISCORD_API_URL): it hands out this gateway's address. */
  url: string;
  /** Gateway sessions that identified and are still open. */
  sessions(): number;
  /** Sends a dispatch (op 0) to every open session, as Discord does for INTERACTION_CREATE. */
  dispatch(t: string, d: unknown): void;
  /** REST requests received, as `METHOD path`. */
  rest: string[];
  close(): Promise<void>;
}

/**
 * The least of Discord a bot logs in to: `GET /gateway/bot`, command registration, interaction
 * callbacks, and a JSON gateway that says HELLO, answers heartbeats and sends READY on IDENTIFY.
 */
export async function startFakeDiscordGateway(applicationId: string): Promise<FakeDiscordGateway> {
  const rest: string[] = [];
  let url = '';
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      rest.push(`${req.method} ${path}`);
      res.setHeader('content-type', 'application/json');
      if (path === '/v10/gateway/bot') {
        const wsUrl = url.replace('http://', 'ws://');
        return res.end(JSON.stringify({ url: wsUrl, shards: 1, session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 } }));
      }
      if (req.method === 'PUT' && path.endsWith('/commands')) return res.end('[]');
      if (req.method === 'POST' && path.endsWith('/callback')) {
        res.statusCode = 204;
        return res.end();
      }
      res.statusCode = 404;
      res.end(JSON.stringify({ message: 'Unknown', code: 0 }));
    });
  });
  const identified = new Set<WebSocket>();
  const wss = new WebSocketServer({ server });
  let seq = 0;
  wss.on('connection', (socket) => {
    socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 45_000 } }));
    socket.on('message', (raw) => {
      const packet = JSON.parse(String(raw)) as { op: number };
      if (packet.op === 1) socket.send(JSON.stringify({ op: 11 }));
      if (packet.op === 2) {
        identified.add(socket);
        const user = { id: '777', username: 'OddswatchFakeBot', discriminator: '0', global_name: null, avatar: null, bot: true };
        const d = { v: 10, user, guilds: [], session_id: `session-${++seq}`, resume_gateway_url: url.replace('http://', 'ws://'), application: { id: applicationId, flags: 0 } };
        socket.send(JSON.stringify({ op: 0, t: 'READY', s: ++seq, d }));
      }
    });
    socket.on('close', () => identified.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    rest,
    sessions: () => identified.size,
    dispatch(t, d) {
      for (const socket of identified) socket.send(JSON.stringify({ op: 0, t, s: ++seq, d }));
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of wss.clients) socket.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

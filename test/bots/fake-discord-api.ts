import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DiscordCall {
  method: string;
  path: string;
  body: any;
  authorization?: string;
}

export interface FakeDiscordApi {
  /** The REST base without /v10, as `new REST({ api })` takes it. */
  url: string;
  calls: DiscordCall[];
  /** Channels where webhook creation answers 403 Missing Permissions. */
  forbiddenChannels: Set<string>;
  callsTo(method: string, path: RegExp): DiscordCall[];
  close(): Promise<void>;
}

/** A throwaway Discord REST API on 127.0.0.1 answering what the bot uses, recording every call. */
export async function startFakeDiscordApi(applicationId: string): Promise<FakeDiscordApi> {
  const calls: DiscordCall[] = [];
  const forbiddenChannels = new Set<string>();
  let hookId = 9000;
  let url = '';
  const hooks = new Map<string, object[]>(); // channel id → webhooks made there
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const body = raw ? JSON.parse(raw) : undefined;
      calls.push({ method: req.method ?? '', path, body, authorization: req.headers.authorization });
      const json = (status: number, value: unknown) => {
        res.statusCode = status;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(value));
      };
      let m: RegExpExecArray | null;
      if (req.method === 'PUT' && /^\/v10\/applications\/[^/]+(\/guilds\/[^/]+)?\/commands$/.test(path)) return json(200, []);
      if (req.method === 'POST' && /^\/v10\/interactions\/[^/]+\/[^/]+\/callback$/.test(path)) {
        res.statusCode = 204;
        return res.end();
      }
      if ((m = /^\/v10\/channels\/([^/]+)\/webhooks$/.exec(path))) {
        const channel = m[1]!;
        if (forbiddenChannels.has(channel)) return json(403, { message: 'Missing Permissions', code: 50013 });
        if (req.method === 'GET') return json(200, hooks.get(channel) ?? []);
        const id = String(++hookId);
        const hook = { id, token: `hooktoken${id}`, channel_id: channel, name: body?.name, application_id: applicationId, url: `${url}/api/webhooks/${id}/hooktoken${id}` };
        hooks.set(channel, [...(hooks.get(channel) ?? []), hook]);
        return json(200, hook);
      }
      return json(404, { message: 'Unknown route', code: 0 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    forbiddenChannels,
    callsTo: (method, path) => calls.filter((c) => c.method === method && path.test(c.path)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

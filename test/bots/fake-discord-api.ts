import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkCommandRegistration, checkDiscordMessage, checkInteractionCallback, type DiscordRefusal } from './platform-rules/discord.js';
import { hasLoneSurrogate } from './platform-rules/utf8.js';

export interface DiscordCall {
  method: string;
  path: string;
  /** The query string without its `?`. */
  query: string;
  body: any;
  authorization?: string;
}

export interface FakeDiscordApi {
  /** The REST base without /v10, as `new REST({ api })` takes it. */
  url: string;
  calls: DiscordCall[];
  /** Channels where webhook creation answers 403 Missing Permissions, and a bot message 403 (a DM the user closed). */
  forbiddenChannels: Set<string>;
  /** Answers to requests whose path matches wait this long first (a slow Discord). */
  delays: { path: RegExp; ms: number }[];
  /** Get Webhook with Token answers 500 while set. */
  failWebhookLookups: boolean;
  /** Deferred answers (callback type 5) are refused with 400 while set. */
  rejectDeferrals: boolean;
  /** This many edits of an original answer are refused with 404 Unknown Message first (not stored yet). */
  unknownOriginalEdits: number;
  /** A webhook in `channel` made by someone else (a user, or another application when given). */
  addForeignWebhook(channel: string, ownerApplicationId?: string): string;
  /** Deletes every webhook of `channel`, as a server admin can in Discord: posts to them get 404 Unknown Webhook. */
  deleteWebhooks(channel: string): void;
  callsTo(method: string, path: RegExp): DiscordCall[];
  /** Requests refused as Discord would refuse them (limits, components, commands), with the answer. */
  refused: (DiscordCall & { answer: DiscordRefusal })[];
  close(): Promise<void>;
}

/** The one interaction callback (the bot's first answer) posted for `interaction`; throws unless exactly one. */
export function onlyCallback(api: FakeDiscordApi, interaction: { id: string; token: string }): any {
  const calls = api.callsTo('POST', new RegExp(`^/v10/interactions/${interaction.id}/${interaction.token}/callback$`));
  if (calls.length !== 1) throw new Error(`expected one callback for interaction ${interaction.id}, got ${calls.length}`);
  return calls[0]!.body;
}

/**
 * A throwaway Discord REST API on 127.0.0.1 answering what the bot uses, recording every call. It
 * refuses what Discord refuses (platform-rules/discord.ts), with Discord's status and body.
 */
export async function startFakeDiscordApi(applicationId: string): Promise<FakeDiscordApi> {
  const calls: DiscordCall[] = [];
  const forbiddenChannels = new Set<string>();
  const delays: FakeDiscordApi['delays'] = [];
  const refused: FakeDiscordApi['refused'] = [];
  const state = { failWebhookLookups: false, rejectDeferrals: false, unknownOriginalEdits: 0 };
  let hookId = 9000;
  let url = '';
  type Hook = { id: string; token: string; channel_id: string; name?: string; application_id: string | null; url: string };
  const hooks = new Map<string, Hook[]>(); // channel id → webhooks made there
  const makeHook = (channel: string, name: string | undefined, owner: string | null): Hook => {
    const id = String(++hookId);
    const hook = { id, token: `hooktoken${id}`, channel_id: channel, name, application_id: owner, url: `${url}/api/webhooks/${id}/hooktoken${id}` };
    hooks.set(channel, [...(hooks.get(channel) ?? []), hook]);
    return hook;
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8'); // joined first: a chunk may end mid-character
      const [rawPath = '', query = ''] = (req.url ?? '').split('?');
      const path = decodeURIComponent(rawPath); // discord.js sends @original as %40original
      const body = raw ? JSON.parse(raw) : undefined;
      const call = { method: req.method ?? '', path, query, body, authorization: req.headers.authorization };
      calls.push(call);
      const delay = delays.find((d) => d.path.test(path));
      if (delay) await new Promise((r) => setTimeout(r, delay.ms));
      const json = (status: number, value: unknown) => {
        res.statusCode = status;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(value));
      };
      const refuse = (answer: DiscordRefusal | undefined): boolean => {
        if (!answer) return false;
        refused.push({ ...call, answer });
        json(answer.status, answer.body);
        return true;
      };
      if (hasLoneSurrogate(body)) return void refuse({ status: 400, body: { code: 50109, message: 'The request body contains invalid JSON.' } });
      let m: RegExpExecArray | null;
      if (req.method === 'PUT' && /^\/v10\/applications\/[^/]+(\/guilds\/[^/]+)?\/commands$/.test(path)) {
        if (refuse(checkCommandRegistration(body))) return;
        return json(200, (body as any[]).map((c, i) => ({ id: String(7000 + i), application_id: applicationId, version: '1', ...c })));
      }
      if (req.method === 'POST' && /^\/v10\/interactions\/[^/]+\/[^/]+\/callback$/.test(path)) {
        if (refuse(checkInteractionCallback(body))) return;
        if (state.rejectDeferrals && body?.type === 5) return json(400, { message: 'Invalid Form Body', code: 50035 });
        res.statusCode = 204;
        return res.end();
      }
      if ((m = /^\/v10\/channels\/([^/]+)\/webhooks$/.exec(path))) {
        const channel = m[1]!;
        if (forbiddenChannels.has(channel)) return json(403, { message: 'Missing Permissions', code: 50013 });
        if (req.method === 'GET') return json(200, hooks.get(channel) ?? []);
        return json(200, makeHook(channel, body?.name, applicationId));
      }
      // Create Message: the bot's own post (a DM). Bot auth; a forbidden channel answers as a DM
      // to a user who blocked the bot or takes no DMs does.
      if (req.method === 'POST' && (m = /^\/v10\/channels\/([^/]+)\/messages$/.exec(path))) {
        if (!/^Bot \S+$/.test(req.headers.authorization ?? '')) return json(401, { message: '401: Unauthorized', code: 0 });
        if (forbiddenChannels.has(m[1]!)) return json(403, { message: 'Cannot send messages to this user', code: 50007 });
        if (refuse(checkDiscordMessage(body))) return;
        return json(200, { id: String(Date.now()), channel_id: m[1], ...body });
      }
      // A channel webhook itself: Get Webhook with Token (no auth) and Execute Webhook.
      if ((m = /^\/api\/webhooks\/([^/]+)\/([^/]+)$/.exec(path))) {
        const hook = [...hooks.values()].flat().find((h) => h.id === m![1] && h.token === m![2]);
        if (!hook) return json(404, { message: 'Unknown Webhook', code: 10015 });
        if (req.method === 'GET') {
          if (state.failWebhookLookups) return json(500, { message: 'Internal Server Error', code: 0 });
          const { url: _url, ...rest } = hook;
          return json(200, { ...rest, type: hook.application_id ? 3 : 1 });
        }
        if (refuse(checkDiscordMessage(body))) return;
        return json(200, { id: String(Date.now()), channel_id: hook.channel_id, webhook_id: hook.id, ...body });
      }
      // The interaction's own webhook: follow-ups, and edits and deletion of the original answer.
      if (/^\/v10\/webhooks\/[^/]+\/[^/]+(\/messages\/@original)?$/.test(path)) {
        if (req.method === 'PATCH' && state.unknownOriginalEdits > 0) {
          state.unknownOriginalEdits--;
          return json(404, { message: 'Unknown Message', code: 10008 });
        }
        if (req.method === 'DELETE') {
          res.statusCode = 204;
          return res.end();
        }
        if (refuse(checkDiscordMessage(body, { edit: req.method === 'PATCH' }))) return;
        return json(200, { id: String(Date.now()), ...body });
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
    delays,
    get failWebhookLookups() {
      return state.failWebhookLookups;
    },
    set failWebhookLookups(value: boolean) {
      state.failWebhookLookups = value;
    },
    get rejectDeferrals() {
      return state.rejectDeferrals;
    },
    set rejectDeferrals(value: boolean) {
      state.rejectDeferrals = value;
    },
    get unknownOriginalEdits() {
      return state.unknownOriginalEdits;
    },
    set unknownOriginalEdits(value: number) {
      state.unknownOriginalEdits = value;
    },
    addForeignWebhook: (channel, owner) => makeHook(channel, 'Someone else', owner ?? null).url,
    deleteWebhooks: (channel) => void hooks.delete(channel),
    callsTo: (method, path) => calls.filter((c) => c.method === method && path.test(c.path)),
    refused,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

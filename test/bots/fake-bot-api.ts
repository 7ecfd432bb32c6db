import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  method: string;
  body: Record<string, any>;
}

export interface FakeBotApi {
  url: string;
  calls: RecordedCall[];
  /** Updates the next getUpdates calls hand out (long polling tests). */
  queueUpdate(update: object): void;
  callsTo(method: string): RecordedCall[];
  /** Chats whose sendMessage answers 403 "bot was blocked by the user". */
  blockedChats: Set<number | string>;
  close(): Promise<void>;
}

/** A throwaway Telegram Bot API on 127.0.0.1 that answers what the bot uses and records every call. */
export async function startFakeBotApi(token: string): Promise<FakeBotApi> {
  const calls: RecordedCall[] = [];
  const pending: object[] = [];
  const blockedChats = new Set<number | string>();
  let messageId = 0;
  const results: Record<string, (body: Record<string, any>) => unknown> = {
    getMe: () => ({ id: 42, is_bot: true, first_name: 'Oddswatch', username: 'OddswatchTestBot', can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false }),
    setMyCommands: () => true,
    setWebhook: () => true,
    deleteWebhook: () => true,
    answerCallbackQuery: () => true,
    sendMessage: (b) => ({ message_id: ++messageId, date: Math.floor(Date.now() / 1000), chat: { id: b.chat_id, type: 'private' }, text: b.text }),
    editMessageText: (b) => ({ message_id: b.message_id, date: Math.floor(Date.now() / 1000), chat: { id: b.chat_id, type: 'private' }, text: b.text }),
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', async () => {
      const match = new RegExp(`^/bot${token}/(\\w+)$`).exec(req.url ?? '');
      const method = match?.[1] ?? '';
      const body = raw ? (JSON.parse(raw) as Record<string, any>) : {};
      calls.push({ method, body });
      let result: unknown;
      if (method === 'sendMessage' && blockedChats.has(body.chat_id)) {
        res.statusCode = 403;
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' }));
      }
      if (method === 'getUpdates') {
        if (pending.length === 0) await new Promise((r) => setTimeout(r, 50));
        result = pending.splice(0);
      } else if (results[method]) {
        result = results[method](body);
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(result === undefined ? { ok: false, error_code: 404, description: 'Not Found' } : { ok: true, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    queueUpdate: (u) => pending.push(u),
    callsTo: (method) => calls.filter((c) => c.method === method),
    blockedChats,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

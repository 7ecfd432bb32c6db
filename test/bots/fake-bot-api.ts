import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkTelegramCall, type TelegramRefusal } from './platform-rules/telegram.js';
import { hasLoneSurrogate } from './platform-rules/utf8.js';

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
  /** Calls refused as the real Bot API would refuse them (limits, HTML, buttons), with the answer. */
  refused: (RecordedCall & { answer: TelegramRefusal })[];
  /** Chats whose sendMessage answers 403 "bot was blocked by the user". */
  blockedChats: Set<number | string>;
  /** Telegram's flood control: the next this many sendMessage calls answer 429 with `retry_after` 1. */
  floodNext(count: number): void;
  close(): Promise<void>;
}

/**
 * A throwaway Telegram Bot API on 127.0.0.1 that answers what the bot uses and records every call.
 * It refuses what Telegram refuses (platform-rules/telegram.ts), with Telegram's status and body.
 */
export async function startFakeBotApi(token: string): Promise<FakeBotApi> {
  const calls: RecordedCall[] = [];
  const pending: object[] = [];
  const blockedChats = new Set<number | string>();
  const refused: FakeBotApi['refused'] = [];
  let messageId = 0;
  let flooded = 0;
  const results: Record<string, (body: Record<string, any>) => unknown> = {
    getMe: () => ({ id: 42, is_bot: true, first_name: 'Oddswatch', username: 'OddswatchTestBot', can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false }),
    setMyCommands: () => true,
    setWebhook: () => true,
    deleteWebhook: () => true,
    answerCallbackQuery: () => true,
    sendMessage: (b) => ({ message_id: ++messageId, date: Math.floor(Date.now() / 1000), chat: { id: b.chat_id, type: 'private' }, text: b.text }),
    editMessageText: (b) => ({ message_id: b.message_id, date: Math.floor(Date.now() / 1000), chat: { id: b.chat_id, type: 'private' }, text: b.text }),
    editMessageReplyMarkup: (b) => ({ message_id: b.message_id, date: Math.floor(Date.now() / 1000), chat: { id: b.chat_id, type: 'private' } }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8'); // joined first: a chunk may end mid-character
      const match = new RegExp(`^/bot${token}/(\\w+)$`).exec(req.url ?? '');
      const method = match?.[1] ?? '';
      const body = raw ? (JSON.parse(raw) as Record<string, any>) : {};
      calls.push({ method, body });
      let result: unknown;
      const refuse = (answer: TelegramRefusal) => {
        res.statusCode = answer.error_code;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ok: false, ...answer }));
      };
      if (method === 'sendMessage' && blockedChats.has(body.chat_id)) {
        return refuse({ error_code: 403, description: 'Forbidden: bot was blocked by the user' });
      }
      if (method === 'sendMessage' && flooded > 0) {
        flooded -= 1;
        const answer = { error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } };
        refused.push({ method, body, answer });
        return refuse(answer);
      }
      if (!match || (!results[method] && method !== 'getUpdates')) return refuse({ error_code: 404, description: 'Not Found' });
      const refusal = hasLoneSurrogate(body) ? { error_code: 400, description: 'Bad Request: strings must be encoded in UTF-8' } : checkTelegramCall(method, body);
      if (refusal) {
        refused.push({ method, body, answer: refusal });
        return refuse(refusal);
      }
      if (method === 'getUpdates') {
        if (pending.length === 0) await new Promise((r) => setTimeout(r, 50));
        result = pending.splice(0);
      } else if (results[method]) {
        result = results[method](body);
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    queueUpdate: (u) => pending.push(u),
    callsTo: (method) => calls.filter((c) => c.method === method),
    refused,
    blockedChats,
    floodNext: (count) => void (flooded = count),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

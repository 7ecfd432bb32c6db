import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** 1 MB: well above any alert or digest body the service sends. */
const MAX_BODY = 1_000_000;

/** What a person looks for first: the kind, what it is about, the price, and whether it is a test. */
function summary(payload: Record<string, unknown>): string {
  const about = payload.marketQuestion ?? payload.eventTitle;
  const value = typeof payload.detectedValue === 'number' ? ` at ${Math.round(payload.detectedValue * 1000) / 10}%` : '';
  return [String(payload.type ?? 'delivery'), typeof about === 'string' ? JSON.stringify(about) + value : '', payload.test === true ? '(test)' : '']
    .filter((part) => part !== '')
    .join(' ');
}

export interface WebhookReceiver {
  url: string;
  close(): Promise<void>;
}

interface Options {
  host: string;
  port: number;
  /** The account's signing secret (`GET /webhook-secret`). */
  secret: string;
  /** One line per request received: verified or refused, and why. */
  print(line: string): void;
}

/**
 * A local endpoint for a Webhook channel while trying the service out: each POST is checked with
 * the Standard Webhooks library against the account's secret; a verified delivery is answered 200
 * and printed with its body, anything else is answered 401 (the service then retries it).
 */
export async function startWebhookReceiver({ host, port, secret, print }: Options): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      const at = new Date().toISOString();
      if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
      if (size > MAX_BODY) {
        print(`${at} refused: a body over ${MAX_BODY} bytes`);
        return void res.writeHead(413).end();
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(req.headers[h] ?? '')]),
      );
      try {
        const payload = verifier.verify(body, headers) as Record<string, unknown>;
        print(`${at} verified ${headers['webhook-id']}: ${summary(payload)}\n  ${JSON.stringify(payload)}`);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      } catch (err) {
        print(`${at} refused ${headers['webhook-id'] || '(no webhook-id)'}: ${(err as Error).message}`);
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'signature not verified' }));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/hook`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

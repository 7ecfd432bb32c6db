import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Wall-clock milliseconds with sub-millisecond precision. */
export const nowMs = () => performance.timeOrigin + performance.now();

/**
 * A webhook receiver for the benches: answers 200 at once and records each `webhook-id`'s receive
 * times (wall clock, ms); `onBody`, when given, sees every body with its receive time.
 */
export class Receiver {
  readonly seen = new Map<string, number[]>();
  received = 0;
  url = '';
  private server = http.createServer((req, res) => {
    const at = nowMs();
    const id = String(req.headers['webhook-id'] ?? '');
    const chunks: Buffer[] = [];
    if (this.onBody) req.on('data', (chunk: Buffer) => chunks.push(chunk));
    else req.resume();
    req.on('end', () => {
      this.received++;
      const times = this.seen.get(id);
      if (times) times.push(at);
      else this.seen.set(id, [at]);
      this.onBody?.(Buffer.concat(chunks), at);
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
      res.end('ok');
    });
  });

  constructor(private readonly onBody?: (body: Buffer, atMs: number) => void) {}

  async start() {
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  reset() {
    this.seen.clear();
    this.received = 0;
  }

  close() {
    this.server.closeAllConnections();
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

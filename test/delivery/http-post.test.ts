import { afterEach, describe, expect, it } from 'vitest';
import { getJson, NetworkError, postJson } from '../../src/net/http-post.js';
import { json, startReceiver, type Receiver } from './support/receiver.js';

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function networkError(promise: Promise<unknown>): Promise<NetworkError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NetworkError);
  return err as NetworkError;
}

describe('postJson', () => {
  it('returns status, headers, body and duration', async () => {
    receiver = await startReceiver((req, res) => json(res, 201, { echo: JSON.parse(req.body) }, { 'x-test': 'yes' }));
    const res = await postJson(`${receiver.url}/p`, { a: 1 }, { timeoutMs: 1000, allowPrivate: true });
    expect(res).toMatchObject({ statusCode: 201, truncated: false, body: '{"echo":{"a":1}}' });
    expect(res.headers['x-test']).toBe('yes');
    expect(res.durationMs).toBeGreaterThanOrEqual(0);
    expect(receiver.requests[0]?.headers['content-length']).toBe('7');
  });

  it('reads a huge response only up to maxResponseBytes and does not hang', async () => {
    let stopped = false;
    receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = () => {
        while (!stopped && res.write(chunk));
        if (!stopped) res.once('drain', pump);
      };
      res.on('close', () => (stopped = true));
      pump();
    });
    const res = await postJson(receiver.url, {}, { timeoutMs: 5000, allowPrivate: true, maxResponseBytes: 1000 });
    expect(res.statusCode).toBe(200);
    expect(res.body).toHaveLength(1000);
    expect(res.truncated).toBe(true);
  });

  it('caps the response at 64 KiB by default', async () => {
    receiver = await startReceiver((_req, res) => {
      res.writeHead(200);
      res.end(Buffer.alloc(200 * 1024, 'y'));
    });
    const res = await postJson(receiver.url, {}, { timeoutMs: 5000, allowPrivate: true });
    expect(res.body).toHaveLength(64 * 1024);
    expect(res.truncated).toBe(true);
  });

  it('times out a receiver that sends headers and then stalls the body', async () => {
    receiver = await startReceiver((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    const err = await networkError(postJson(receiver.url, {}, { timeoutMs: 200, allowPrivate: true }));
    expect(err.kind).toBe('timeout');
    expect(err.message).toBe('timed out after 200 ms');
  });

  it('refuses to connect to a loopback IP literal when private addresses are not allowed', async () => {
    receiver = await startReceiver((_req, res) => json(res, 200, {}));
    const err = await networkError(postJson(receiver.url, {}, { timeoutMs: 1000, allowPrivate: false }));
    expect(err.kind).toBe('unsafe_address');
    expect(err.message).toBe('refused to connect to 127.0.0.1: a loopback address');
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses at connect time a host name that resolves to loopback', async () => {
    receiver = await startReceiver((_req, res) => json(res, 200, {}));
    const err = await networkError(
      postJson(`http://localhost:${receiver.port}/`, {}, { timeoutMs: 1000, allowPrivate: false }),
    );
    expect(err.kind).toBe('unsafe_address');
    expect(err.message).toContain('loopback');
    expect(receiver.requests).toHaveLength(0);
  });

  it('guards https connections the same way, for literals and for names', async () => {
    const literal = await networkError(postJson('https://127.0.0.1:9/', {}, { timeoutMs: 1000, allowPrivate: false }));
    expect(literal).toMatchObject({ kind: 'unsafe_address', message: 'refused to connect to 127.0.0.1: a loopback address' });
    const named = await networkError(postJson('https://localhost:9/', {}, { timeoutMs: 1000, allowPrivate: false }));
    expect(named.kind).toBe('unsafe_address');
  });

  it('refuses cloud metadata at connect time even when private addresses are allowed', async () => {
    const literal = await networkError(postJson('http://169.254.169.254/', {}, { timeoutMs: 1000, allowPrivate: true }));
    expect(literal.message).toContain('cloud metadata');
    const named = await networkError(
      postJson('http://metadata.google.internal/', {}, { timeoutMs: 1000, allowPrivate: true }),
    );
    expect(named).toMatchObject({ kind: 'unsafe_address' });
    expect(named.message).toContain('cloud metadata');
  });

  it('reuses kept-alive connections between requests', async () => {
    const ports = new Set<number | undefined>();
    receiver = await startReceiver((_req, res) => {
      ports.add(res.socket?.remotePort);
      json(res, 200, {});
    });
    for (let i = 0; i < 3; i++) await postJson(receiver.url, {}, { timeoutMs: 1000, allowPrivate: true });
    expect(ports.size).toBe(1);
  });

  it('refuses a non-http scheme', async () => {
    const err = await networkError(postJson('file:///etc/passwd', {}, { timeoutMs: 1000, allowPrivate: true }));
    expect(err.kind).toBe('unsafe_address');
  });
});

describe('getJson', () => {
  it('GETs without a body and returns status and body', async () => {
    receiver = await startReceiver((req, res) => json(res, 200, { method: req.method }));
    const res = await getJson(`${receiver.url}/g?x=1`, { timeoutMs: 1000, allowPrivate: true });
    expect(res).toMatchObject({ statusCode: 200, body: '{"method":"GET"}' });
    const req = receiver.requests[0]!;
    expect(req).toMatchObject({ method: 'GET', url: '/g?x=1', body: '' });
    expect(req.headers['content-length']).toBeUndefined();
  });

  it('goes through the same guard: a private address is refused unless allowed', async () => {
    receiver = await startReceiver((_req, res) => json(res, 200, {}));
    const err = await networkError(getJson(receiver.url, { timeoutMs: 1000, allowPrivate: false }));
    expect(err.kind).toBe('unsafe_address');
    expect(receiver.requests).toHaveLength(0);
  });
});

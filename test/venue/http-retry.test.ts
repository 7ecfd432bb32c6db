import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGammaClient } from '../../src/venue/gamma/client.js';
import { HttpError } from '../../src/venue/http.js';
import { silent } from './support.js';

const retry = { retries: 3, minDelayMs: 10, maxDelayMs: 100 };
let server: Server | undefined;

/** A tiny venue stand-in answering the scripted statuses in order, then 200 with `[]`. */
async function scripted(answers: { status: number; headers?: Record<string, string> }[]) {
  const hits: number[] = [];
  server = createServer((_req, res) => {
    hits.push(Date.now());
    const next = answers.shift() ?? { status: 200 };
    res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
    res.end(next.status === 200 ? '[{"id":"1","label":"Politics","slug":"politics"}]' : '{"error":"nope"}');
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, hits };
}

afterEach(async () => {
  const s = server;
  server = undefined;
  s?.closeAllConnections();
  if (s) await new Promise((r) => s.close(r));
});

describe('venue requests', () => {
  it('retries a 429 after the Retry-After seconds, then succeeds', async () => {
    const { baseUrl, hits } = await scripted([{ status: 429, headers: { 'retry-after': '1' } }]);
    const client = createGammaClient({ baseUrl, logger: silent, timeoutMs: 1000, retry });
    const tags = await client.listTags();
    expect(tags).toEqual([{ id: '1', label: 'Politics', slug: 'politics' }]);
    expect(hits).toHaveLength(2);
    expect((hits[1] ?? 0) - (hits[0] ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('retries 5xx answers', async () => {
    const { baseUrl, hits } = await scripted([{ status: 503 }, { status: 502 }]);
    const client = createGammaClient({ baseUrl, logger: silent, timeoutMs: 1000, retry });
    await expect(client.listTags()).resolves.toHaveLength(1);
    expect(hits).toHaveLength(3);
  });

  it('does not retry a 400', async () => {
    const { baseUrl, hits } = await scripted([{ status: 400 }]);
    const client = createGammaClient({ baseUrl, logger: silent, timeoutMs: 1000, retry });
    await expect(client.listTags()).rejects.toMatchObject({ name: 'HttpError', status: 400 });
    expect(hits).toHaveLength(1);
  });

  it('gives up after the retry budget', async () => {
    const { baseUrl, hits } = await scripted(Array.from({ length: 10 }, () => ({ status: 500 })));
    const client = createGammaClient({ baseUrl, logger: silent, timeoutMs: 1000, retry: { ...retry, retries: 2 } });
    await expect(client.listTags()).rejects.toBeInstanceOf(HttpError);
    expect(hits).toHaveLength(3);
  });

  it('retries a network error', async () => {
    const { baseUrl } = await scripted([]);
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      calls += 1;
      if (calls === 1) throw new TypeError('fetch failed');
      return fetch(input, init);
    };
    const client = createGammaClient({ baseUrl, logger: silent, timeoutMs: 1000, retry, fetch: flaky });
    await expect(client.listTags()).resolves.toHaveLength(1);
    expect(calls).toBe(2);
  });
});

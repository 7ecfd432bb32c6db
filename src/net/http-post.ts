import http from 'node:http';
import https from 'node:https';
import { createGuardedAgent } from './guarded-agent.js';
import { UnsafeUrlError, bareHostname } from './ssrf.js';

export interface PostJsonOptions {
  headers?: Record<string, string>;
  timeoutMs: number;
  allowPrivate: boolean;
  maxResponseBytes?: number;
}

export interface PostJsonResponse {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  /** The response body as text, cut at maxResponseBytes. */
  body: string;
  truncated: boolean;
  durationMs: number;
}

export type NetworkErrorKind = 'timeout' | 'refused' | 'unsafe_address' | 'dns' | 'network';

export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  constructor(
    readonly kind: NetworkErrorKind,
    message: string,
    readonly durationMs: number,
  ) {
    super(message);
  }
}

const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
const agents = new Map<string, http.Agent>();

function agentFor(protocol: 'http:' | 'https:', allowPrivate: boolean): http.Agent {
  const key = `${protocol}${allowPrivate}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = createGuardedAgent({ protocol, allowPrivate });
    agents.set(key, agent);
  }
  return agent;
}

function toNetworkError(err: unknown, timeoutMs: number, timedOut: boolean, durationMs: number): NetworkError {
  if (timedOut) return new NetworkError('timeout', `timed out after ${timeoutMs} ms`, durationMs);
  if (err instanceof UnsafeUrlError) return new NetworkError('unsafe_address', err.message, durationMs);
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ECONNREFUSED') return new NetworkError('refused', 'connection refused', durationMs);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new NetworkError('dns', 'the host name could not be resolved', durationMs);
  }
  return new NetworkError('network', `network error: ${code ?? (err as Error | undefined)?.message ?? 'unknown'}`, durationMs);
}

/**
 * POSTs JSON through the SSRF-guarded agents. Redirects are not followed (a 3xx is returned as
 * is); the timeout covers connect, upload and download; the body read stops at maxResponseBytes.
 */
export function postJson(url: string | URL, body: unknown, options: PostJsonOptions): Promise<PostJsonResponse> {
  return request('POST', url, Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), options);
}

/** GETs through the same guarded agents, with the same timeout, size cap and no redirects. */
export function getJson(url: string | URL, options: PostJsonOptions): Promise<PostJsonResponse> {
  return request('GET', url, undefined, options);
}

function request(method: 'GET' | 'POST', url: string | URL, payload: Buffer | undefined, options: PostJsonOptions): Promise<PostJsonResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const { timeoutMs, allowPrivate, maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES } = options;

  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return reject(new NetworkError('unsafe_address', 'not a valid URL', elapsed()));
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return reject(new NetworkError('unsafe_address', `the ${target.protocol} scheme is not allowed`, elapsed()));
    }
    const transport = target.protocol === 'https:' ? https : http;
    let timedOut = false;
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(toNetworkError(err, timeoutMs, timedOut, elapsed()));
    };

    const req = transport.request(
      {
        protocol: target.protocol,
        hostname: bareHostname(target),
        port: target.port || undefined,
        path: `${target.pathname}${target.search}`,
        method,
        agent: agentFor(target.protocol, allowPrivate),
        headers: payload
          ? { 'content-type': 'application/json', ...options.headers, 'content-length': String(payload.length) }
          : { accept: 'application/json', ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let received = 0;
        let truncated = false;
        const finish = () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({
            statusCode: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            truncated,
            durationMs: elapsed(),
          });
        };
        res.on('data', (chunk: Buffer) => {
          const room = maxResponseBytes - received;
          if (chunk.length > room) {
            chunks.push(chunk.subarray(0, room));
            received = maxResponseBytes;
            truncated = true;
            finish();
            // The rest is not wanted: dropping the socket is cheaper than draining a large body.
            res.destroy();
            return;
          }
          chunks.push(chunk);
          received += chunk.length;
        });
        res.on('end', finish);
        res.on('error', fail);
        res.on('close', () => {
          if (!res.complete) fail(new Error('response aborted'));
        });
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy();
      fail(new Error('timeout'));
    }, timeoutMs);
    req.on('error', fail);
    req.end(payload);
  });
}

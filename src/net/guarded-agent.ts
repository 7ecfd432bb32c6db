import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import { UnsafeUrlError, addressRefusal, isMetadataHostname, type SsrfOptions } from './ssrf.js';

function refused(host: string, why: string): UnsafeUrlError {
  return new UnsafeUrlError(`refused to connect to ${host}: ${why}`, 'address');
}

/**
 * A `lookup` for sockets that checks every address the name resolves to at connect time, so a
 * name that was public when saved cannot be re-pointed at an internal address (DNS rebinding).
 */
export function createGuardedLookup(options: SsrfOptions): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    if (isMetadataHostname(hostname)) {
      callback(refused(hostname, 'a cloud metadata address'), '');
      return;
    }
    dnsLookup(hostname, { ...lookupOptions, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '');
      for (const { address } of addresses) {
        const why = addressRefusal(address, options);
        if (why) return callback(refused(`${hostname} (${address})`, why), '');
      }
      if (lookupOptions.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new Error(`no address for ${hostname}`), '');
      callback(null, first.address, first.family);
    });
  };
}

type ConnectCallback = (err: Error | null, stream: Duplex) => void;
// Node's callback type wants a stream even alongside an error; on error it is never read.
const noStream = undefined as unknown as Duplex;

// Node skips `lookup` when the host is an IP literal, so literals are checked before connecting.
function guardedConnection(
  options: http.ClientRequestArgs,
  guard: SsrfOptions,
  lookup: LookupFunction,
  callback: ConnectCallback | undefined,
  connect: (options: http.ClientRequestArgs, callback?: ConnectCallback) => Duplex | null | undefined,
): Duplex | null | undefined {
  const host = options.host ?? options.hostname ?? '';
  if (isIP(host)) {
    const why = addressRefusal(host, guard);
    if (why) {
      callback?.(refused(host, why), noStream);
      return undefined;
    }
  }
  return connect({ ...options, lookup }, callback);
}

class GuardedHttpAgent extends http.Agent {
  readonly #lookup: LookupFunction;
  constructor(
    readonly guard: SsrfOptions,
    options: http.AgentOptions,
  ) {
    super(options);
    this.#lookup = createGuardedLookup(guard);
  }
  override createConnection(options: http.ClientRequestArgs, callback?: ConnectCallback) {
    return guardedConnection(options, this.guard, this.#lookup, callback, (o, cb) => super.createConnection(o, cb));
  }
}

class GuardedHttpsAgent extends https.Agent {
  readonly #lookup: LookupFunction;
  constructor(
    readonly guard: SsrfOptions,
    options: https.AgentOptions,
  ) {
    super(options);
    this.#lookup = createGuardedLookup(guard);
  }
  override createConnection(options: https.RequestOptions, callback?: ConnectCallback) {
    return guardedConnection(options, this.guard, this.#lookup, callback, (o, cb) => super.createConnection(o, cb));
  }
}

export interface GuardedAgentOptions extends SsrfOptions {
  protocol?: 'http:' | 'https:';
  keepAlive?: boolean;
  maxSockets?: number;
}

export function createGuardedAgent({ protocol = 'https:', keepAlive = true, maxSockets = 256, ...guard }: GuardedAgentOptions) {
  const agentOptions = { keepAlive, maxSockets, keepAliveMsecs: 1000 };
  return protocol === 'https:' ? new GuardedHttpsAgent(guard, agentOptions) : new GuardedHttpAgent(guard, agentOptions);
}

import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface SsrfOptions {
  /** Allow loopback, private and other non-public addresses (local development, tests). */
  allowPrivate: boolean;
}

export type UnsafeUrlReason = 'invalid_url' | 'scheme' | 'address' | 'unresolvable';

export class UnsafeUrlError extends Error {
  override readonly name = 'UnsafeUrlError';
  readonly code = 'UNSAFE_URL';
  constructor(
    message: string,
    readonly reason: UnsafeUrlReason,
  ) {
    super(message);
  }
}

export interface ResolvedAddress {
  address: string;
  family: number;
}
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const METADATA_HOSTNAMES = new Set(['metadata.google.internal', 'metadata.goog']);
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254']);
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  uniqueLocal: 'a private (unique-local) address',
  reserved: 'a reserved address',
};

export function isMetadataHostname(hostname: string): boolean {
  return METADATA_HOSTNAMES.has(hostname.toLowerCase().replace(/\.$/, ''));
}

/**
 * Why an IP address may not be contacted, or null when it may. Cloud metadata endpoints are
 * refused even with allowPrivate: a local-development switch must not expose instance credentials.
 */
export function addressRefusal(ip: string, { allowPrivate }: SsrfOptions): string | null {
  if (!ipaddr.isValid(ip)) return 'not an IP address';
  const parsed = ipaddr.process(ip); // IPv4-mapped IPv6 becomes the IPv4 address it carries
  if (METADATA_ADDRESSES.has(parsed.toString())) {
    return 'a cloud metadata address';
  }
  if (allowPrivate) return null;
  const range = parsed.range();
  if (range === 'unicast' && (parsed.kind() === 'ipv4' || parsed.match(IPV6_GLOBAL_UNICAST))) return null;
  return RANGE_NAMES[range] ?? 'a special-purpose address';
}

export const defaultResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });

export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Save-time check of a user-supplied URL: http(s) only, and every address the host resolves to
 * must be public. Connect-time checks (see guarded-agent.ts) still apply, against DNS rebinding.
 */
export async function assertPublicHttpUrl(
  rawUrl: string,
  options: SsrfOptions & { field?: string; resolve?: Resolver },
): Promise<URL> {
  const prefix = `${options.field ?? 'URL'} must be a public http(s) URL`;
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new UnsafeUrlError(`${prefix}: "${rawUrl}" is not a valid URL`, 'invalid_url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UnsafeUrlError(`${prefix}: the ${url.protocol} scheme is not allowed`, 'scheme');
  }
  const host = bareHostname(url);
  if (isMetadataHostname(host)) {
    throw new UnsafeUrlError(`${prefix}: ${host} is a cloud metadata address`, 'address');
  }
  if (isIP(host)) {
    const refusal = addressRefusal(host, options);
    if (refusal) throw new UnsafeUrlError(`${prefix}: ${host} is ${refusal}`, 'address');
    return url;
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await (options.resolve ?? defaultResolver)(host);
  } catch {
    throw new UnsafeUrlError(`${prefix}: the host ${host} could not be resolved`, 'unresolvable');
  }
  if (addresses.length === 0) {
    throw new UnsafeUrlError(`${prefix}: the host ${host} could not be resolved`, 'unresolvable');
  }
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, options);
    if (refusal) throw new UnsafeUrlError(`${prefix}: ${host} resolves to ${address}, ${refusal}`, 'address');
  }
  return url;
}

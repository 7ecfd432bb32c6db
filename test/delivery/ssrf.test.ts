import { describe, expect, it } from 'vitest';
import { createGuardedLookup } from '../../src/net/guarded-agent.js';
import { UnsafeUrlError, addressRefusal, assertPublicHttpUrl, type Resolver } from '../../src/net/ssrf.js';

const strict = { allowPrivate: false, field: 'webhookUrl' };
const noDns: Resolver = () => Promise.reject(new Error('DNS must not be used for an IP literal'));

async function refusal(url: string, options: Parameters<typeof assertPublicHttpUrl>[1] = { ...strict, resolve: noDns }) {
  const err = await assertPublicHttpUrl(url, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `${url} should be refused`).toBeInstanceOf(UnsafeUrlError);
  return (err as UnsafeUrlError).message;
}

describe('save-time URL check', () => {
  it.each([
    ['http://127.0.0.1/hook', 'a loopback address'],
    ['http://[::1]/hook', 'a loopback address'],
    ['http://10.0.0.1/hook', 'a private address'],
    ['http://172.16.5.4/hook', 'a private address'],
    ['http://192.168.1.1/hook', 'a private address'],
    ['http://169.254.169.254/latest/meta-data', 'a cloud metadata address'],
    ['http://169.254.10.10/', 'a link-local address'],
    ['http://[fe80::1]/', 'a link-local address'],
    ['http://[fc00::1]/', 'unique-local'],
    ['http://[fd00:ec2::254]/', 'a cloud metadata address'],
    ['http://224.0.0.1/', 'a multicast address'],
    ['http://0.0.0.0/', 'an unspecified address'],
    ['http://255.255.255.255/', 'the broadcast address'],
    ['http://100.64.0.1/', 'a carrier-grade NAT address'],
    ['http://192.0.2.10/', 'a reserved address'],
    ['http://[::ffff:127.0.0.1]/', 'a loopback address'],
    ['http://[::ffff:10.1.2.3]/', 'a private address'],
    ['http://2130706433/', 'a loopback address'],
    ['http://0x7f.0.0.1/', 'a loopback address'],
    ['http://[64:ff9b::7f00:1]/', 'a special-purpose address'],
  ])('refuses %s as %s', async (url, why) => {
    expect(await refusal(url)).toContain(why);
  });

  it('names the field and the address in a message a user can act on', async () => {
    expect(await refusal('http://10.0.0.1/hook')).toBe(
      'webhookUrl must be a public http(s) URL: 10.0.0.1 is a private address',
    );
  });

  it('refuses a host name that resolves to loopback (localhost)', async () => {
    expect(await refusal('http://localhost:8080/hook', strict)).toMatch(/localhost resolves to .*a loopback address/);
  });

  it('refuses a host name when any one of its addresses is private', async () => {
    const resolve: Resolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    expect(await refusal('https://mixed.example/hook', { ...strict, resolve })).toContain('10.0.0.7, a private address');
  });

  it('refuses the metadata.google.internal host name without resolving it', async () => {
    expect(await refusal('http://metadata.google.internal/computeMetadata/v1/')).toContain('cloud metadata');
  });

  it('refuses a host name that cannot be resolved', async () => {
    const resolve: Resolver = () => Promise.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' }));
    expect(await refusal('https://nowhere.invalid/', { ...strict, resolve })).toContain('could not be resolved');
  });

  it.each(['ftp://example.com/file', 'file:///etc/passwd', 'javascript:alert(1)', 'gopher://example.com'])(
    'refuses the non-http scheme of %s',
    async (url) => {
      expect(await refusal(url)).toContain('scheme is not allowed');
    },
  );

  it('refuses text that is not a URL', async () => {
    expect(await refusal('not a url')).toContain('is not a valid URL');
  });

  it.each(['http://93.184.216.34/hook', 'https://93.184.216.34:8443/hook', 'https://[2606:4700::6810:84e5]/hook'])(
    'accepts the public address %s',
    async (url) => {
      await expect(assertPublicHttpUrl(url, { ...strict, resolve: noDns })).resolves.toBeInstanceOf(URL);
    },
  );

  it('accepts a host name whose addresses are all public', async () => {
    const resolve: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    await expect(assertPublicHttpUrl('https://hooks.example.com/x', { ...strict, resolve })).resolves.toBeInstanceOf(URL);
  });

  it('with allowPrivate accepts loopback and private addresses but still refuses cloud metadata', async () => {
    const lax = { allowPrivate: true, resolve: noDns };
    await expect(assertPublicHttpUrl('http://127.0.0.1:3000/hook', lax)).resolves.toBeInstanceOf(URL);
    await expect(assertPublicHttpUrl('http://10.0.0.1/hook', lax)).resolves.toBeInstanceOf(URL);
    expect(await refusal('http://169.254.169.254/', lax)).toContain('cloud metadata');
  });
});

describe('connect-time lookup guard', () => {
  const lookupWith = (allowPrivate: boolean, hostname: string, all: boolean) =>
    new Promise<{ err: Error | null; address: unknown }>((resolve) => {
      createGuardedLookup({ allowPrivate })(hostname, { all }, (err, address) => resolve({ err, address }));
    });

  it('refuses a name that resolves to loopback at connect time', async () => {
    const { err } = await lookupWith(false, 'localhost', false);
    expect(err).toBeInstanceOf(UnsafeUrlError);
    expect(err?.message).toMatch(/refused to connect to localhost .*loopback/);
  });

  it('passes the addresses through when they are allowed, in both lookup forms', async () => {
    expect((await lookupWith(true, 'localhost', false)).address).toEqual(expect.any(String));
    expect((await lookupWith(true, 'localhost', true)).address).toEqual(
      expect.arrayContaining([expect.objectContaining({ address: expect.any(String) })]),
    );
  });

  it('classifies addresses with ipaddr.js ranges', () => {
    expect(addressRefusal('8.8.8.8', { allowPrivate: false })).toBeNull();
    expect(addressRefusal('::ffff:169.254.169.254', { allowPrivate: true })).toBe('a cloud metadata address');
    expect(addressRefusal('2002:7f00:1::', { allowPrivate: false })).toBe('a special-purpose address');
  });
});

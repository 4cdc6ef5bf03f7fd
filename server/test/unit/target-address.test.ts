import { describe, expect, it } from 'vitest';
import {
  checkTarget,
  forbiddenReason,
  type Resolver,
  TargetRefused,
  TargetUnresolved,
} from '../../src/modules/webhooks/target-address.js';

// Which addresses a webhook may be sent to. Names are resolved by stubs (no test asks a real DNS),
// except `localhost`, which the system answers from /etc/hosts.
const STRICT = { allowPrivateNetworks: false, requireHttps: false };
const stub =
  (addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('forbiddenReason', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['169.254.169.254', 'a link-local address (cloud metadata lives there)'],
    ['100.100.100.200', 'a carrier-grade NAT address (cloud metadata lives there too)'],
    ['::1', 'a loopback address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:10.1.2.3', 'a private address'],
    ['fd00:ec2::254', 'a unique-local (private) address'],
    ['fe80::1', 'a link-local address (cloud metadata lives there)'],
    ['0.0.0.0', 'the unspecified address'],
    ['::', 'the unspecified address'],
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'the broadcast address'],
    ['192.0.2.10', 'a reserved address'],
    ['198.18.0.1', 'a reserved address'],
    ['2001:db8::1', 'a reserved address'],
    ['not-an-address', 'not an IP address'],
  ])('refuses %s: %s', (address, reason) => {
    expect(forbiddenReason(address)).toBe(reason);
  });

  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:93.184.216.34'])(
    'allows the public address %s',
    (address) => {
      expect(forbiddenReason(address)).toBeNull();
    },
  );
});

describe('checkTarget', () => {
  it('answers the checked address of a public name, and keeps the URL', async () => {
    const target = await checkTarget('https://hooks.example.test/in?x=1', STRICT, stub(['93.184.216.34']));
    expect(target).toMatchObject({ address: '93.184.216.34', family: 4 });
    expect(target.url.href).toBe('https://hooks.example.test/in?x=1');
  });

  it('refuses a name that resolves to a private address among public ones, in any order', async () => {
    for (const addresses of [
      ['93.184.216.34', '10.0.0.7'],
      ['10.0.0.7', '93.184.216.34'],
    ]) {
      await expect(checkTarget('https://mixed.example.test/', STRICT, stub(addresses))).rejects.toThrow(
        'mixed.example.test resolves to 10.0.0.7, a private address',
      );
    }
    await expect(
      checkTarget('https://v6.example.test/', STRICT, stub(['2606:4700:4700::1111', 'fd00:ec2::254'])),
    ).rejects.toThrow(TargetRefused);
  });

  it.each([
    ['http://127.0.0.1:8080/', '127.0.0.1 is a loopback address'],
    ['http://[::1]/', '::1 is a loopback address'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1 is a loopback address'],
    [
      'http://169.254.169.254/latest/meta-data/',
      '169.254.169.254 is a link-local address (cloud metadata lives there)',
    ],
    ['http://0.0.0.0/', '0.0.0.0 is the unspecified address'],
  ])('refuses the address literal %s', async (url, reason) => {
    await expect(checkTarget(url, STRICT, stub([]))).rejects.toThrow(reason);
  });

  it('refuses localhost, resolved by the system', async () => {
    await expect(checkTarget('http://localhost:3000/hook', STRICT)).rejects.toThrow(/^localhost resolves to/);
  });

  it('allows private addresses when told to (tests, local development)', async () => {
    const policy = { allowPrivateNetworks: true, requireHttps: false };
    expect(await checkTarget('http://127.0.0.1:9/', policy)).toMatchObject({
      address: '127.0.0.1',
      family: 4,
    });
    expect(await checkTarget('http://[::1]:9/', policy)).toMatchObject({ address: '::1', family: 6 });
  });

  it('refuses what is not plain http(s) to a host, and http when HTTPS is required', async () => {
    const requireHttps = { allowPrivateNetworks: false, requireHttps: true };
    const publicName = stub(['93.184.216.34']);
    await expect(checkTarget('http://hooks.example.test/', requireHttps, publicName)).rejects.toThrow(
      'HTTPS is required',
    );
    await expect(checkTarget('ftp://hooks.example.test/', STRICT, publicName)).rejects.toThrow(
      'only http(s) URLs',
    );
    await expect(checkTarget('https://u:p@hooks.example.test/', STRICT, publicName)).rejects.toThrow(
      'must not carry credentials',
    );
    await expect(checkTarget('not a url', STRICT, publicName)).rejects.toThrow('cannot be parsed');
  });

  it('says a name that does not resolve is unresolved, not refused for good', async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expect(checkTarget('https://gone.example.test/', STRICT, failing)).rejects.toThrow(
      TargetUnresolved,
    );
    await expect(checkTarget('https://empty.example.test/', STRICT, stub([]))).rejects.toThrow(
      TargetUnresolved,
    );
  });
});

import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may be sent. A service that POSTs to URLs its users choose is a request forger
 * for anyone who can register one (SSRF): the metadata endpoint of the cloud it runs in, the
 * database next to it, an admin port on loopback. So only public unicast addresses are allowed,
 * checked on every address the name resolves to (a name is not trusted: `localhost`, or a public
 * name that resolves to 10.0.0.1), at registration and again at every attempt, and the connection
 * then goes to the address that was checked, never to a second resolution (DNS rebinding).
 */
export type TargetPolicy = {
  /** Loopback, private and link-local allowed too: tests and local development only. */
  allowPrivateNetworks: boolean;
  /** Plain http:// refused (production). */
  requireHttps: boolean;
};

/** A resolved, checked target: connect to `address`, say `url`'s host. */
export type CheckedTarget = { url: URL; address: string; family: 4 | 6 };

export class TargetRefused extends Error {}
/**
 * The name does not resolve (yet): an attempt fails, but a registration is accepted, since DNS
 * may be set up after the endpoint, and every attempt checks again.
 */
export class TargetUnresolved extends TargetRefused {}

/** Blocks ipaddr.js calls `unicast` but that are not the public internet's. */
const EXTRA_BLOCKS: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [
  ipaddr.parseCIDR('198.18.0.0/15'), // benchmarking (RFC 2544)
  ipaddr.parseCIDR('192.0.2.0/24'), // documentation (TEST-NET-1)
  ipaddr.parseCIDR('198.51.100.0/24'), // TEST-NET-2
  ipaddr.parseCIDR('203.0.113.0/24'), // TEST-NET-3
  ipaddr.parseCIDR('2001:db8::/32'), // documentation
];

/**
 * Why an address may not be sent to ("a loopback address"), or null if it may: anything but public unicast (loopback,
 * private, link-local and so cloud metadata at 169.254.169.254, carrier-grade NAT and so
 * 100.100.100.200, unique-local fd00::/8, multicast, reserved, unspecified). IPv6 forms that carry
 * an IPv4 address (mapped ::ffff:a.b.c.d, NAT64, 6to4, Teredo) are judged by that address or refused.
 */
export function forbiddenReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (range !== 'unicast') return RANGE_NAMES[range] ?? `a ${range} address`;
  for (const [block, bits] of EXTRA_BLOCKS) {
    if (parsed.kind() === block.kind() && parsed.match(block, bits)) return 'a reserved address';
  }
  return null;
}

const RANGE_NAMES: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address (cloud metadata lives there)',
  uniqueLocal: 'a unique-local (private) address',
  carrierGradeNat: 'a carrier-grade NAT address (cloud metadata lives there too)',
  unspecified: 'the unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
};

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/**
 * The URL's host, resolved and checked: every address it resolves to must be allowed (a name
 * that also resolves to a private address is refused, whatever order the resolver gives), and
 * the first one is used. Throws TargetRefused with a reason fit to show the endpoint's owner.
 */
export async function checkTarget(
  rawUrl: string,
  policy: TargetPolicy,
  resolve: Resolver = systemResolver,
): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new TargetRefused('the URL cannot be parsed');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TargetRefused('only http(s) URLs');
  if (policy.requireHttps && url.protocol !== 'https:') throw new TargetRefused('HTTPS is required');
  if (url.username || url.password) throw new TargetRefused('the URL must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (ipaddr.isValid(host)) {
    addresses = [{ address: ipaddr.parse(host).toString(), family: host.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new TargetUnresolved(`${host} does not resolve`);
    }
    if (addresses.length === 0) throw new TargetUnresolved(`${host} does not resolve`);
  }
  if (!policy.allowPrivateNetworks) {
    for (const { address } of addresses) {
      const reason = forbiddenReason(address);
      if (reason) {
        throw new TargetRefused(
          host === address ? `${address} is ${reason}` : `${host} resolves to ${address}, ${reason}`,
        );
      }
    }
  }
  const [first] = addresses;
  if (!first) throw new TargetUnresolved(`${host} does not resolve`);
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

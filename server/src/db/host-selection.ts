import { performance } from 'node:perf_hooks';

/**
 * Choosing the primary among the hosts of a multi-host URL
 * (`postgres://…@h1:p1,h2:p2/db?target_session_attrs=read-write`), as libpq does, but for a pool
 * that must follow a failover by itself.
 *
 * postgres.js 3.4.9 cannot be trusted with it: with `read-write` it takes a PostgreSQL 14+ hot
 * standby for a writable node (it reads only `default_transaction_read_only`, which a standby
 * reports `off`), and with several hosts it swallows every connection error while a "next host"
 * exists, so that a query waits for ever when none is usable (porsager/postgres#815, #988, #1174).
 * So the driver is shown one host, and its sockets go where a probe of every host (host-probe.ts)
 * found a writable one.
 */

export type HostAddress = { readonly host: string; readonly port: number };

/** What a probe of one host found: `read-only` is a standby, or a primary that refuses writes. */
export type HostRole = 'writable' | 'read-only' | 'unreachable';

export type Probe = (address: HostAddress) => Promise<HostRole>;

export type HostList = {
  addresses: HostAddress[];
  /** The same URL for one of its hosts, without target_session_attrs (the pool checks the node itself). */
  urlFor(address: HostAddress): string;
};

const DEFAULT_PORT = 5432;

/** A service that writes cannot use a node chosen for reading: refused at start rather than 25006 at every write. */
const WRITABLE_TARGETS = new Set([undefined, 'any', 'read-write', 'primary']);

/**
 * The hosts of a multi-host `postgres://` URL (libpq's `host1:port1,host2:port2` form; IPv6 in
 * brackets; a host without a port gets 5432); undefined for a URL with one host (or none), which
 * the driver reads as it always has. The authority ends at the first `/` or `?`, as postgres.js
 * reads it; the user information ends at its last `@`.
 */
export function parseHostList(url: string): HostList | undefined {
  const scheme = /^postgres(?:ql)?:\/\//.exec(url)?.[0];
  if (!scheme) return undefined;
  const end = url.slice(scheme.length).search(/[/?]/);
  const authority = end < 0 ? url.slice(scheme.length) : url.slice(scheme.length, scheme.length + end);
  const rest = end < 0 ? '' : url.slice(scheme.length + end);
  const at = authority.lastIndexOf('@');
  const userinfo = at < 0 ? '' : authority.slice(0, at + 1);
  const hostlist = authority.slice(at + 1);
  if (!hostlist.includes(',')) return undefined;
  const addresses = hostlist.split(',').map(parseHost);
  const targets = queryValues(rest, 'target_session_attrs');
  const target = targets.at(-1);
  if (!WRITABLE_TARGETS.has(target)) {
    throw new Error(
      `target_session_attrs=${target} asks for a node that is not the primary: the service writes, ` +
        'so it needs read-write or primary (or none)',
    );
  }
  return {
    addresses,
    urlFor: (address) =>
      `${scheme}${userinfo}${formatHost(address)}${withoutQueryParameter(rest, 'target_session_attrs')}`,
  };
}

function parseHost(text: string): HostAddress {
  const match = /^(?:\[([^\]]*)\]|([^:]*))(?::(\d*))?$/.exec(text);
  const host = decodeURIComponent(match?.[1] ?? match?.[2] ?? '');
  if (!match || host === '') throw new Error(`cannot read the host "${text}" of the database URL`);
  const port = match[3] ? Number(match[3]) : DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`bad port in "${text}"`);
  return { host, port };
}

function formatHost({ host, port }: HostAddress): string {
  return `${host.includes(':') ? `[${host}]` : encodeURIComponent(host)}:${port}`;
}

function queryValues(rest: string, name: string): string[] {
  const query = rest.split('#')[0]?.split('?')[1] ?? '';
  return [...new URLSearchParams(query)].filter(([key]) => key === name).map(([, value]) => value);
}

function withoutQueryParameter(rest: string, name: string): string {
  const [path = '', query] = rest.split('?');
  if (query === undefined) return rest;
  const kept = query.split('&').filter((pair) => decodeURIComponent(pair.split('=')[0] ?? '') !== name);
  return kept.length > 0 ? `${path}?${kept.join('&')}` : path;
}

/** Every host was probed and none accepts writes: a 503 (db-errors.ts), like a database that is down. */
export class NoWritableHostError extends Error {
  readonly code = 'NO_WRITABLE_HOST';
}

export type SelectorOptions = {
  /** After a round of probes found no writable host, the answer stands this long. */
  retryMs?: number;
  now?: () => number;
};

/**
 * Which host to open the pool's next connection to. The answer is kept until a connection to it
 * closes or fails (`forget`): a server only stops being the primary by going down or restarting,
 * which ends every session, so a primary that is still serving needs no probe. Without a known
 * writable host, one round probes every host at once (callers meanwhile share it), and the first
 * writable one to answer wins. When none is, callers are refused at once for `retryMs`, then the
 * next caller starts a new round: during a failover, requests fail fast (503) rather than wait,
 * the hosts get at most one probe each per `retryMs`, and the promoted standby is found within
 * about that time.
 */
export class HostSelector {
  private writable: HostAddress | undefined;
  private round: Promise<HostAddress | undefined> | undefined;
  private noneSince = Number.NEGATIVE_INFINITY;
  private readonly roles = new Map<HostAddress, HostRole>();
  private readonly retryMs: number;
  private readonly now: () => number;

  constructor(
    readonly addresses: readonly HostAddress[],
    private readonly probe: Probe,
    options: SelectorOptions = {},
  ) {
    this.retryMs = options.retryMs ?? 500;
    this.now = options.now ?? (() => performance.now());
  }

  /** The writable host; NoWritableHostError when a round of probes (this one, or a recent one) found none. */
  async writableHost(): Promise<HostAddress> {
    if (this.writable) return this.writable;
    if (!this.round && this.now() - this.noneSince < this.retryMs) throw this.noWritableHost();
    if (!this.round) {
      const round = this.probeAll();
      this.round = round;
      void round.finally(() => {
        if (this.round === round) this.round = undefined;
      });
    }
    const found = await this.round;
    if (!found) throw this.noWritableHost();
    return found;
  }

  /** A connection to `address` closed or failed: whether it is still the primary is not known any more. */
  forget(address: HostAddress): void {
    if (this.writable === address) this.writable = undefined;
  }

  private probeAll(): Promise<HostAddress | undefined> {
    return new Promise((resolve) => {
      let pending = this.addresses.length;
      let found: HostAddress | undefined;
      for (const address of this.addresses) {
        this.probe(address)
          .catch((): HostRole => 'unreachable')
          .then((role) => {
            this.roles.set(address, role);
            if (role === 'writable' && !found) {
              found = address;
              this.writable = address;
              resolve(address);
            }
            if (--pending === 0 && !found) {
              this.noneSince = this.now();
              resolve(undefined);
            }
          });
      }
    });
  }

  private noWritableHost(): NoWritableHostError {
    const seen = this.addresses.map(
      (address) => `${formatHost(address)} ${this.roles.get(address) ?? 'not probed'}`,
    );
    return new NoWritableHostError(`no writable PostgreSQL host: ${seen.join(', ')}`);
  }
}

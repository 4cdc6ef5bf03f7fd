import { describe, expect, it, vi } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/db-errors.js';
import {
  type HostAddress,
  type HostRole,
  HostSelector,
  NoWritableHostError,
  parseHostList,
} from '../../src/db/host-selection.js';

const h1 = { host: 'db-1.internal', port: 5432 };
const h2 = { host: 'db-2.internal', port: 5433 };

/** A probe whose answers the test gives, host by host, when it wants. */
function manualProbe() {
  const waiting: { address: HostAddress; answer(role: HostRole): void }[] = [];
  const probe = vi.fn(
    (address: HostAddress) => new Promise<HostRole>((resolve) => waiting.push({ address, answer: resolve })),
  );
  const answer = (address: HostAddress, role: HostRole) => {
    const index = waiting.findIndex((w) => w.address === address);
    const [found] = waiting.splice(index, 1);
    if (index < 0 || !found) throw new Error(`no probe of ${address.host} is waiting`);
    found.answer(role);
  };
  return { probe, answer };
}

/** A probe that answers at once from a table the test changes. */
function tableProbe(roles: Map<HostAddress, HostRole>) {
  return vi.fn(async (address: HostAddress) => roles.get(address) ?? 'unreachable');
}

describe('parseHostList: the hosts of a multi-host URL', () => {
  it('reads libpq host lists, with default ports and IPv6, and rebuilds a URL per host', () => {
    const list = parseHostList(
      'postgres://app:s%40cret@db-1.internal:5432,db-2.internal/tms?sslmode=require&target_session_attrs=read-write',
    );
    expect(list?.addresses).toEqual([
      { host: 'db-1.internal', port: 5432 },
      { host: 'db-2.internal', port: 5432 },
    ]);
    expect(list?.urlFor({ host: 'db-2.internal', port: 5432 })).toBe(
      'postgres://app:s%40cret@db-2.internal:5432/tms?sslmode=require',
    );
    const v6 = parseHostList('postgresql://[::1]:5433,[fd00::2]:5434/tms?target_session_attrs=primary');
    expect(v6?.addresses).toEqual([
      { host: '::1', port: 5433 },
      { host: 'fd00::2', port: 5434 },
    ]);
    expect(v6?.urlFor({ host: '::1', port: 5433 })).toBe('postgresql://[::1]:5433/tms');
    expect(parseHostList('postgres://a,b')?.urlFor({ host: 'b', port: 5432 })).toBe('postgres://b:5432');
  });

  it('leaves a URL with one host (or none) to the driver', () => {
    expect(parseHostList('postgres://app@db.internal:5432/tms')).toBeUndefined();
    expect(parseHostList('postgres:///tms')).toBeUndefined();
    expect(parseHostList('postgres://app@db.internal/tms?target_session_attrs=read-only')).toBeUndefined();
  });

  it('refuses a target that is not the primary, and hosts it cannot read', () => {
    for (const target of ['read-only', 'standby', 'prefer-standby']) {
      expect(() => parseHostList(`postgres://a:1,b:2/tms?target_session_attrs=${target}`)).toThrow(/primary/);
    }
    for (const target of ['any', 'read-write', 'primary']) {
      expect(parseHostList(`postgres://a:1,b:2/tms?target_session_attrs=${target}`)?.addresses).toHaveLength(
        2,
      );
    }
    expect(() => parseHostList('postgres://a:1,:2/tms')).toThrow(/host/);
    expect(() => parseHostList('postgres://a:1,b:99999/tms')).toThrow(/port/);
  });
});

describe('HostSelector: which host the next connection goes to', () => {
  it('probes every host at once, takes the writable one, and keeps it until told otherwise', async () => {
    const probe = tableProbe(
      new Map<HostAddress, HostRole>([
        [h1, 'read-only'],
        [h2, 'writable'],
      ]),
    );
    const selector = new HostSelector([h1, h2], probe);
    await expect(selector.writableHost()).resolves.toBe(h2);
    await expect(selector.writableHost()).resolves.toBe(h2);
    expect(probe).toHaveBeenCalledTimes(2);
    // A connection to another host closing says nothing about the primary.
    selector.forget(h1);
    await expect(selector.writableHost()).resolves.toBe(h2);
    expect(probe).toHaveBeenCalledTimes(2);
    selector.forget(h2);
    await expect(selector.writableHost()).resolves.toBe(h2);
    expect(probe).toHaveBeenCalledTimes(4);
  });

  it('shares one round among callers, and does not wait for a silent host once one is writable', async () => {
    const { probe, answer } = manualProbe();
    const selector = new HostSelector([h1, h2], probe);
    const callers = [selector.writableHost(), selector.writableHost(), selector.writableHost()];
    expect(probe).toHaveBeenCalledTimes(2);
    answer(h2, 'writable');
    await expect(Promise.all(callers)).resolves.toEqual([h2, h2, h2]);
    // h1 never answered (a host that swallows packets): nobody waited for it.
  });

  it('without a writable host: a 503 error naming what each host is, then no probe for retryMs', async () => {
    let clock = 0;
    const roles = new Map<HostAddress, HostRole>([
      [h1, 'unreachable'],
      [h2, 'read-only'],
    ]);
    const probe = tableProbe(roles);
    const selector = new HostSelector([h1, h2], probe, { retryMs: 500, now: () => clock });
    const error = await selector.writableHost().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoWritableHostError);
    expect((error as Error).message).toBe(
      'no writable PostgreSQL host: db-1.internal:5432 unreachable, db-2.internal:5433 read-only',
    );
    expect(isDatabaseUnavailable({ cause: error })).toBe(true);
    // During a failover every request is refused at once, without hammering the hosts.
    clock = 499;
    await expect(selector.writableHost()).rejects.toBeInstanceOf(NoWritableHostError);
    expect(probe).toHaveBeenCalledTimes(2);
    // The standby is promoted: the next round after retryMs finds it.
    roles.set(h2, 'writable');
    clock = 500;
    await expect(selector.writableHost()).resolves.toBe(h2);
    expect(probe).toHaveBeenCalledTimes(4);
  });

  it('takes a probe that fails as an unreachable host', async () => {
    const probe = vi.fn(async (address: HostAddress): Promise<HostRole> => {
      if (address === h1) throw new Error('ECONNREFUSED');
      return 'writable';
    });
    await expect(new HostSelector([h1, h2], probe).writableHost()).resolves.toBe(h2);
    const none = new HostSelector([h1], probe);
    await expect(none.writableHost()).rejects.toThrow('db-1.internal:5432 unreachable');
  });

  it('follows a failover: the old primary down, the promoted standby found', async () => {
    const roles = new Map<HostAddress, HostRole>([
      [h1, 'writable'],
      [h2, 'read-only'],
    ]);
    let clock = 0;
    const selector = new HostSelector([h1, h2], tableProbe(roles), { retryMs: 500, now: () => clock });
    await expect(selector.writableHost()).resolves.toBe(h1);
    // The primary dies: its connections close, and the next connection asks again.
    roles.set(h1, 'unreachable');
    selector.forget(h1);
    await expect(selector.writableHost()).rejects.toThrow(/no writable/);
    roles.set(h2, 'writable');
    clock += 500;
    await expect(selector.writableHost()).resolves.toBe(h2);
  });
});

import { type Contract, contract } from '@tms/contract';
import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { type RouteTable, routes } from '../src/routes.js';
import { pathOf, queryString } from '../src/transport.js';

/** The contract as the SDK's table would say it: method and path of every route. */
function methodsAndPaths(router: AppRouter): unknown {
  return Object.fromEntries(
    Object.entries(router).map(([key, entry]) => [
      key,
      isAppRoute(entry)
        ? { method: (entry as AppRoute).method, path: (entry as AppRoute).path }
        : methodsAndPaths(entry as AppRouter),
    ]),
  );
}

describe("the SDK's route table", () => {
  it('says what the contract says, route by route (the compiler checks it too)', () => {
    expect(routes).toEqual(methodsAndPaths(contract));
  });

  it('does not compile with a wrong path, a wrong method, a missing or an extra route', () => {
    const { me, health, tenants, memberships } = routes;
    // @ts-expect-error: not the contract's path
    const wrongPath: RouteTable<Contract> = { ...routes, me: { get: { method: 'GET', path: '/mee' } } };
    // @ts-expect-error: not the contract's method
    const wrongMethod: RouteTable<Contract> = { ...routes, me: { get: { method: 'POST', path: '/me' } } };
    // @ts-expect-error: the contract's me.get is missing
    const missing: RouteTable<Contract> = { tenants, memberships, health, me: {} };
    const extra: RouteTable<Contract> = {
      tenants,
      memberships,
      health,
      // @ts-expect-error: the contract has no me.put
      me: { ...me, put: { method: 'PUT', path: '/me' } },
    };
    expect([wrongPath, wrongMethod, missing, extra]).toHaveLength(4);
  });
});

describe('URLs', () => {
  it('encodes path parameters as one segment each', () => {
    expect(pathOf(routes.memberships.get.path, { tenantId: 'a/b?c#d', tenantMembershipId: 'é %' })).toBe(
      '/tenants/a%2Fb%3Fc%23d/memberships/%C3%A9%20%25',
    );
  });

  it('refuses a parameter that is missing, empty, or a dot segment that would change the path', () => {
    for (const tenantId of [undefined, '', '.', '..']) {
      expect(() => pathOf(routes.tenants.get.path, { tenantId })).toThrow(TypeError);
    }
  });

  it('leaves undefined and null out of the query, repeats arrays, and spells values out', () => {
    expect(
      queryString({ limit: 5, q: 'a&b=c', cursor: undefined, role: null, includeTotal: true, x: ['1', '2'] }),
    ).toBe('?limit=5&q=a%26b%3Dc&includeTotal=true&x=1&x=2');
    expect(queryString({})).toBe('');
    expect(queryString({ cursor: undefined })).toBe('');
    expect(() => queryString({ q: { nested: 1 } })).toThrow(TypeError);
  });
});

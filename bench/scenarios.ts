import type autocannon from 'autocannon';

export const SCENARIOS = ['get-one', 'list-first', 'list-deep', 'me', 'post-delete'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export const TITLES: Record<ScenarioName, string> = {
  'get-one': 'GET one membership',
  'list-first': 'GET first list page',
  'list-deep': 'GET list page past row 900,000',
  me: 'GET /me',
  'post-delete': 'POST then DELETE a membership',
};

/** What the load generator needs, written once by the harness and read by each load process. */
export type Fixture = {
  tenantId: string;
  /** The big tenant's OWNER: every membership route goes through the tenant-admin guard. */
  ownerToken: string;
  /** A user with a handful of memberships. */
  meToken: string;
  getIds: string[];
  /** The opaque cursor (base64url of `v1:<id>`) of the row the deep page follows. */
  deepCursor: string;
  /** Users in no tenant: each POST adds one of them, the DELETE after it removes it again. */
  poolUserIds: string[];
};

export const encodeCursor = (id: string) => Buffer.from(`v1:${id}`).toString('base64url');

type Requests = autocannon.Request[];
type Context = { membershipId?: string };

/**
 * The requests of one scenario, as autocannon sequences them on each connection. Rotating values
 * come from counters shared by all connections of the process; `usedPool` reports how many pool
 * users the POSTs took, so that the next run starts past them.
 */
export function requestsFor(
  name: ScenarioName,
  f: Fixture,
  poolOffset: number,
): { requests: Requests; usedPool: () => number } {
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const tenantPath = `/tenants/${f.tenantId}/memberships`;
  let n = 0;
  const none = { usedPool: () => 0 };
  switch (name) {
    case 'get-one':
      return {
        ...none,
        requests: [
          {
            method: 'GET',
            headers: auth(f.ownerToken),
            setupRequest: (req) => ({ ...req, path: `${tenantPath}/${f.getIds[n++ % f.getIds.length]}` }),
          },
        ],
      };
    case 'list-first':
      return { ...none, requests: [{ method: 'GET', path: tenantPath, headers: auth(f.ownerToken) }] };
    case 'list-deep':
      return {
        ...none,
        requests: [
          { method: 'GET', path: `${tenantPath}?cursor=${f.deepCursor}`, headers: auth(f.ownerToken) },
        ],
      };
    case 'me':
      return { ...none, requests: [{ method: 'GET', path: '/me', headers: auth(f.meToken) }] };
    case 'post-delete':
      return {
        usedPool: () => n,
        requests: [
          {
            method: 'POST',
            path: tenantPath,
            headers: { ...auth(f.ownerToken), 'content-type': 'application/json' },
            setupRequest: (req) => {
              const userId = f.poolUserIds[(poolOffset + n++) % f.poolUserIds.length];
              return { ...req, body: JSON.stringify({ role: 'STUDENT', userId }) };
            },
            onResponse: (status, body, context: Context) => {
              context.membershipId =
                status === 201
                  ? (JSON.parse(body) as { data: { tenantMembershipId: string } }).data.tenantMembershipId
                  : undefined;
            },
          },
          {
            method: 'DELETE',
            headers: auth(f.ownerToken),
            // No id (the POST failed): autocannon starts the sequence again with a POST. Its types
            // do not admit the undefined that its documentation asks for.
            setupRequest: (req, context: Context) =>
              (context.membershipId
                ? { ...req, path: `${tenantPath}/${context.membershipId}` }
                : undefined) as autocannon.Request,
          },
        ],
      };
  }
}

import type autocannon from 'autocannon';

/**
 * In the order a pass runs them. The write comes last: the dead rows it leaves in the tables and
 * the garbage in both servers' heaps would be counted against the reads after it, and each pass
 * starts with fresh servers.
 */
export const SCENARIOS = [
  'get-one',
  'list-first',
  'list-deep',
  'me',
  'list-role',
  'list-q',
  'post-delete',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export const TITLES: Record<ScenarioName, string> = {
  'get-one': 'GET one membership',
  'list-first': 'GET first list page',
  'list-deep': 'GET list page past row 900,000',
  me: 'GET /me',
  'list-role': 'GET list page, role=ADMIN',
  'list-q': 'GET list page, q=kowal',
  'post-delete': 'POST then DELETE a membership',
};

/** The filtered pages, which are also measured at smaller tenants: their cost should not grow with it. */
export const FILTER_SCENARIOS = ['list-role', 'list-q'] as const satisfies readonly ScenarioName[];
export type FilterScenario = (typeof FILTER_SCENARIOS)[number];
export const isFilter = (name: ScenarioName): name is FilterScenario =>
  (FILTER_SCENARIOS as readonly string[]).includes(name);

/** 2 % of the seed's members are ADMINs: a page of them is found within the first thousand rows. */
export const ROLE_FILTER = 'ADMIN';

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
  /** What the search scenario types: a name fragment five members of each tenant have. */
  q: string;
  /** The big tenant's size, and smaller tenants (with their own OWNER) for the filtered pages. */
  memberships: number;
  sweep: { size: number; tenantId: string; ownerToken: string }[];
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
  size?: number,
): { requests: Requests; usedPool: () => number } {
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const tenantPath = `/tenants/${f.tenantId}/memberships`;
  // The filtered pages at a smaller tenant of the sweep; the big tenant otherwise.
  const small = f.sweep.find((tenant) => tenant.size === size);
  if (size !== undefined && size !== f.memberships && !small) throw new Error(`no tenant of ${size} members`);
  const filtered = small ?? { tenantId: f.tenantId, ownerToken: f.ownerToken };
  const filteredPath = `/tenants/${filtered.tenantId}/memberships`;
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
    case 'list-role':
    case 'list-q': {
      const query = name === 'list-role' ? `role=${ROLE_FILTER}` : `q=${encodeURIComponent(f.q)}`;
      const path = `${filteredPath}?${query}`;
      return { ...none, requests: [{ method: 'GET', path, headers: auth(filtered.ownerToken) }] };
    }
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

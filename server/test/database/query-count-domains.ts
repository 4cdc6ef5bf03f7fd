import { createClient } from '@tms/client';
import { type Actor, createTenantFixture, unique } from '../support/factories.js';
import type { TestServer } from '../support/harness.js';
import type { AnyResponse } from '../support/memberships.js';

/*
 * The domain routes' cases of query-count.test.ts. A domain's change is the tenant's lock, the
 * caller read after it, the domain and its audit event; a super administrator's verification
 * finds the domain's tenant by the domain's id first, then locks it, and applies the domain to the
 * people already known at it (one statement when it reaches nobody new).
 */

export type DomainsFixture = { tenantId: string; owner: Actor; superAdmin: Actor; domainIds: string[] };

export async function domainsFixture(h: TestServer, superAdmin: Actor): Promise<DomainsFixture> {
  const t = await createTenantFixture(h);
  const sdk = createClient({ baseUrl: h.baseUrl, token: t.owner.token, retries: false });
  const domainIds: string[] = [];
  for (let i = 0; i < 3; i++)
    domainIds.push(
      (await sdk.domains.create(t.tenantId, { domain: `${unique('count')}.example.edu`, mode: 'join' }))
        .domainId,
    );
  return { tenantId: t.tenantId, owner: t.owner, superAdmin, domainIds };
}

type Cost = { statements: number; transactions: number };
type DomainCase = {
  route: string;
  name: string;
  status: number;
  cost: Cost;
  call: (d: DomainsFixture) => Promise<AnyResponse>;
};

const reads = (n: number): Cost => ({ statements: n, transactions: 0 });
const writes = (n: number): Cost => ({ statements: n, transactions: 1 });
/** A platform write (a domain verified): its caller read and decided before its body, then `n` in its transaction. */
const decidedFirst = (n: number): Cost => ({ statements: n + 1, transactions: 1 });
const one = (d: DomainsFixture, i: number) => ({ tenantId: d.tenantId, domainId: d.domainIds[i] ?? '' });

export const DOMAIN_CASES: DomainCase[] = [
  {
    route: 'domains.create',
    name: 'lock, caller with its role, insert, audit event',
    status: 201,
    cost: writes(4),
    call: (d) =>
      d.owner.api.domains.create({
        params: { tenantId: d.tenantId },
        body: { domain: `${unique('count')}.example.edu`, mode: 'join' },
      }),
  },
  {
    route: 'domains.list',
    name: 'caller with its role and the page',
    status: 200,
    cost: reads(1),
    call: (d) => d.owner.api.domains.list({ params: { tenantId: d.tenantId }, query: {} }),
  },
  {
    route: 'domains.get',
    name: 'caller with its role and the domain',
    status: 200,
    cost: reads(1),
    call: (d) => d.owner.api.domains.get({ params: one(d, 0) }),
  },
  {
    route: 'domains.update',
    name: 'lock, caller, the domain, update, audit event',
    status: 200,
    cost: writes(5),
    call: (d) => d.owner.api.domains.update({ params: one(d, 0), body: { mode: 'request' } }),
  },
  {
    route: 'domains.verify',
    name: "caller decided before the body; then the domain's tenant, lock, the domain, verify, audit event, the people already known at it recorded (none here)",
    status: 200,
    cost: decidedFirst(6),
    call: (d) => d.superAdmin.api.domains.verify({ params: { domainId: d.domainIds[1] ?? '' }, body: {} }),
  },
  {
    route: 'domains.remove',
    name: 'lock, caller with its role, the domain, delete, audit event',
    status: 204,
    cost: writes(5),
    call: (d) => d.owner.api.domains.remove({ params: one(d, 2) }),
  },
];

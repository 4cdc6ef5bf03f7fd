import { randomUUID } from 'node:crypto';
import { createClient } from '@tms/client';
import { scimGroups } from '../../src/db/schema.js';
import { type Actor, createTenantFixture, unique } from '../support/factories.js';
import type { TestServer } from '../support/harness.js';
import type { AnyResponse } from '../support/memberships.js';

/*
 * The SCIM admin routes' cases of query-count.test.ts: tokens and the role a directory group
 * gives. Reads are one statement with the caller. A change is the tenant's lock, the caller read
 * after it, its own statements and its audit event.
 */

export type ScimFixture = { tenantId: string; owner: Actor; tokenIds: string[]; groupIds: string[] };

export async function scimFixture(h: TestServer): Promise<ScimFixture> {
  const t = await createTenantFixture(h);
  const sdk = createClient({ baseUrl: h.baseUrl, token: t.owner.token, retries: false });
  const tokenIds = [(await sdk.scimTokens.create(t.tenantId)).scimTokenId];
  const groupIds = [randomUUID(), randomUUID()];
  await h.db.insert(scimGroups).values([
    { id: groupIds[0] as string, tenantId: t.tenantId, displayName: unique('g') },
    { id: groupIds[1] as string, tenantId: t.tenantId, displayName: unique('g'), role: 'TEACHER' },
  ]);
  return { tenantId: t.tenantId, owner: t.owner, tokenIds, groupIds };
}

type Cost = { statements: number; transactions: number };
type ScimCase = {
  route: string;
  name: string;
  status: number;
  cost: Cost;
  call: (s: ScimFixture) => Promise<AnyResponse>;
};

const reads = (n: number): Cost => ({ statements: n, transactions: 0 });
const writes = (n: number): Cost => ({ statements: n, transactions: 1 });
const group = (s: ScimFixture, i: number) => ({ tenantId: s.tenantId, groupId: s.groupIds[i] ?? '' });

export const SCIM_CASES: ScimCase[] = [
  {
    route: 'scimTokens.create',
    name: 'lock, caller with its role, insert, audit event',
    status: 201,
    cost: writes(4),
    call: (s) => s.owner.api.scimTokens.create({ params: { tenantId: s.tenantId }, body: {} }),
  },
  {
    route: 'scimTokens.list',
    name: 'caller and the tokens',
    status: 200,
    cost: reads(1),
    call: (s) => s.owner.api.scimTokens.list({ params: { tenantId: s.tenantId } }),
  },
  {
    route: 'scimTokens.revoke',
    name: 'lock, caller, delete returning the token, audit event',
    status: 204,
    cost: writes(4),
    call: (s) =>
      s.owner.api.scimTokens.revoke({ params: { tenantId: s.tenantId, scimTokenId: s.tokenIds[0] ?? '' } }),
  },
  {
    route: 'scimGroups.list',
    name: 'caller and the groups with their member counts',
    status: 200,
    cost: reads(1),
    call: (s) => s.owner.api.scimGroups.list({ params: { tenantId: s.tenantId } }),
  },
  {
    route: 'scimGroups.setRole',
    name: 'lock, caller, group, its count, update, its members, audit event (no member: no role to give)',
    status: 200,
    cost: writes(7),
    call: (s) => s.owner.api.scimGroups.setRole({ params: group(s, 0), body: { role: 'TEACHER' } }),
  },
  {
    route: 'scimGroups.unmapRole',
    name: 'lock, caller, group, its count, update, its members, audit event',
    status: 200,
    cost: writes(7),
    call: (s) => s.owner.api.scimGroups.unmapRole({ params: group(s, 1) }),
  },
];

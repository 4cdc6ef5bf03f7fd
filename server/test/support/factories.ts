import { randomUUID } from 'node:crypto';
import type { RawClient } from '@tms/client';
import type { Role } from '@tms/contract';
import { insertUserIfAbsent } from '../../src/identity/identity.repository.js';
import { SYSTEM_AUDIT } from '../../src/modules/audit/audit-context.js';
import { listMembershipsAs } from '../../src/modules/memberships/membership-pages.repository.js';
import { insertMembership } from '../../src/modules/memberships/memberships.repository.js';
import { createTenant } from '../../src/modules/tenants/tenants.service.js';
import { grantSuperAdmin } from '../../src/modules/users/super-admins.service.js';
import type { TestServer } from './harness.js';

/**
 * 64 random bits: the authorisation matrix alone makes tens of thousands of users in one database,
 * where 32 bits collided about one run in five (a duplicate subject is not inserted).
 */
export const unique = (prefix: string) => `${prefix}-${randomUUID().replaceAll('-', '').slice(0, 16)}`;

export type Actor = { userId: string; subject: string; email: string; token: string; api: RawClient };

/** A user with a record, a token and a client of its own. */
export async function createActor(
  h: TestServer,
  options: { superAdmin?: boolean; name?: string } = {},
): Promise<Actor> {
  const subject = unique('sub');
  const email = `${subject}@example.test`;
  const user = await insertUserIfAbsent(h.db, { subject, email, displayName: options.name ?? subject });
  if (!user) throw new Error('factory could not create a user');
  if (options.superAdmin) await grantSuperAdmin(h.db, subject);
  const token = await h.token(subject);
  return { userId: user.id, subject, email, token, api: h.client(token) };
}

export const createSuperAdmin = (h: TestServer) => createActor(h, { superAdmin: true, name: 'Super Admin' });

/** Setup acts as the command line would: no actor. */
const FIXTURE_CHANGE = { audit: SYSTEM_AUDIT, retention: { days: 30 } };

export type TenantFixture = { tenantId: string; slug: string; owner: Actor; ownerMembershipId: string };

/** A tenant with its first OWNER, made through the service (setup, not the thing under test). */
export async function createTenantFixture(
  h: TestServer,
  owner?: Actor,
  slug = unique('tenant'),
  name = `Tenant ${slug}`,
): Promise<TenantFixture> {
  const theOwner = owner ?? (await createActor(h));
  const tenant = await createTenant(h.db, FIXTURE_CHANGE, { name, slug, owner: { userId: theOwner.userId } });
  const {
    items: [membership],
  } = await listMembershipsAs(h.db, theOwner.subject, { tenantId: tenant.id, limit: 1 });
  if (!membership) throw new Error('factory could not read the owner membership');
  return { tenantId: tenant.id, slug, owner: theOwner, ownerMembershipId: membership.id };
}

/** Adds an actor to a tenant with a role; returns the membership id. */
export async function addMember(h: TestServer, tenantId: string, role: Role, actor?: Actor) {
  const member = actor ?? (await createActor(h));
  const row = await insertMembership(h.db, { tenantId, userId: member.userId, role });
  return { actor: member, membershipId: row.id };
}

import {
  type CreateMembershipBody,
  type ListMembershipsQuery,
  ROLE_LEVEL,
  type Role,
  type UpdateMembershipBody,
} from '@tms/contract';
import type { Caller } from '../../auth/identity.service.js';
import type { Database, Executor } from '../../db/database.js';
import { isUniqueViolation } from '../../db/db-errors.js';
import {
  LastOwnerError,
  MembershipAlreadyExistsError,
  MembershipNotFoundError,
  RoleHierarchyViolationError,
} from '../../errors/index.js';
import { decodeCursor, type Page, toPage } from '../../pagination/cursor.js';
import { assertIfMatch } from '../shared/if-match.js';
import { getOrInviteUser } from '../users/users.service.js';
import {
  countOwners,
  deleteMembership,
  findMembership,
  insertMembership,
  listMemberships,
  type MembershipWithUser,
  updateMembershipRole,
} from './memberships.repository.js';
import { authoriseTenantAdmin, type TenantAccess } from './tenant-access.service.js';

const MEMBERSHIP_KEY = 'tenant_memberships_tenant_user_key';

/** Nobody hands out, or acts on, a role above their own: an ADMIN cannot make or unmake an OWNER. */
function assertWithinLevel(access: TenantAccess, role: Role, message: string): void {
  if (ROLE_LEVEL[role] > access.level) throw new RoleHierarchyViolationError(message);
}

async function getMembership(
  db: Executor,
  tenantId: string,
  membershipId: string,
): Promise<MembershipWithUser> {
  const membership = await findMembership(db, tenantId, membershipId);
  if (!membership) throw new MembershipNotFoundError(membershipId);
  return membership;
}

/**
 * A tenant without an OWNER could never be administered again by its own people. Every writer
 * holds the tenant's row lock (see findTenantAndRole), so this count cannot go stale before commit,
 * whichever process the racing request reached.
 */
async function assertNotLastOwner(db: Executor, membership: MembershipWithUser): Promise<void> {
  if (membership.role === 'OWNER' && (await countOwners(db, membership.tenantId)) <= 1) {
    throw new LastOwnerError();
  }
}

export async function listMembershipsPage(
  db: Database,
  access: TenantAccess,
  query: ListMembershipsQuery,
): Promise<Page<MembershipWithUser>> {
  const rows = await listMemberships(db, {
    tenantId: access.tenantId,
    afterId: decodeCursor(query.cursor),
    role: query.role,
    q: query.q,
    limit: query.limit + 1,
  });
  return toPage(rows, query.limit);
}

export async function readMembership(
  db: Database,
  access: TenantAccess,
  membershipId: string,
): Promise<MembershipWithUser> {
  return getMembership(db, access.tenantId, membershipId);
}

/**
 * Writes re-check the caller's rights inside the transaction, under the tenant lock, so that a
 * caller demoted a moment ago cannot still act on the strength of an earlier read.
 */
export async function createMembership(
  db: Database,
  caller: Caller,
  tenantId: string,
  body: CreateMembershipBody,
): Promise<MembershipWithUser> {
  try {
    return await db.transaction(async (tx) => {
      const access = await authoriseTenantAdmin(tx, caller, tenantId, { lockTenant: true });
      assertWithinLevel(access, body.role, `You may not give the role ${body.role}`);
      const user = await getOrInviteUser(tx, body, 'body.email');
      const invitedDisplayName = 'email' in body ? (body.displayName ?? null) : null;
      const row = await insertMembership(tx, {
        tenantId,
        userId: user.id,
        role: body.role,
        invitedDisplayName,
      });
      return { ...row, user: { email: user.email, displayName: user.displayName } };
    });
  } catch (error) {
    if (isUniqueViolation(error, MEMBERSHIP_KEY)) throw new MembershipAlreadyExistsError();
    throw error;
  }
}

export async function changeMembershipRole(
  db: Database,
  caller: Caller,
  tenantId: string,
  membershipId: string,
  body: UpdateMembershipBody,
  ifMatch: string | undefined,
): Promise<MembershipWithUser> {
  return db.transaction(async (tx) => {
    const access = await authoriseTenantAdmin(tx, caller, tenantId, { lockTenant: true });
    const membership = await getMembership(tx, tenantId, membershipId);
    assertWithinLevel(
      access,
      membership.role,
      `You may not change a membership whose role is ${membership.role}`,
    );
    assertWithinLevel(access, body.role, `You may not give the role ${body.role}`);
    assertIfMatch(ifMatch, membership.version);
    if (body.role === membership.role) return membership;
    if (body.role !== 'OWNER') await assertNotLastOwner(tx, membership);
    const updated = await updateMembershipRole(tx, tenantId, membershipId, body.role);
    if (!updated) throw new MembershipNotFoundError(membershipId);
    return { ...updated, user: membership.user };
  });
}

export async function removeMembership(
  db: Database,
  caller: Caller,
  tenantId: string,
  membershipId: string,
  ifMatch: string | undefined,
): Promise<void> {
  await db.transaction(async (tx) => {
    const access = await authoriseTenantAdmin(tx, caller, tenantId, { lockTenant: true });
    const membership = await getMembership(tx, tenantId, membershipId);
    assertWithinLevel(
      access,
      membership.role,
      `You may not remove a membership whose role is ${membership.role}`,
    );
    assertIfMatch(ifMatch, membership.version);
    await assertNotLastOwner(tx, membership);
    if (!(await deleteMembership(tx, tenantId, membershipId)))
      throw new MembershipNotFoundError(membershipId);
  });
}

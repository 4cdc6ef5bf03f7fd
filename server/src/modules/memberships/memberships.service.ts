import {
  type CreateMembershipBody,
  type ListMembershipsQuery,
  ROLE_LEVEL,
  type Role,
  type UpdateMembershipBody,
} from '@tms/contract';
import type { TenantAccess } from '../../access/decide-access.js';
import type { Database, Executor, Transaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/db-errors.js';
import {
  LastOwnerError,
  MembershipAlreadyExistsError,
  MembershipNotFoundError,
  RoleHierarchyViolationError,
} from '../../errors/index.js';
import {
  decodeCursor,
  decodeSortedCursor,
  encodeSortedCursor,
  type Page,
  toPage,
} from '../../pagination/cursor.js';
import { assertIfMatch } from '../shared/if-match.js';
import { getOrInviteUser } from '../users/users.service.js';
import {
  countMemberships,
  type ListFilters,
  listMemberships,
  listMembershipsSorted,
} from './membership-pages.repository.js';
import {
  countOwners,
  deleteMembership,
  findMembership,
  insertMembership,
  type MembershipWithUser,
  updateMembershipRole,
} from './memberships.repository.js';

const MEMBERSHIP_KEY = 'tenant_memberships_tenant_user_key';

/** Nobody hands out, or acts on, a role above their own: an ADMIN cannot make or unmake an OWNER. */
function assertWithinLevel(access: TenantAccess, role: Role, message: string): void {
  if (ROLE_LEVEL[role] > access.level) throw new RoleHierarchyViolationError(message);
}

/** The membership, within the tenant (the scope rule), or MEMBERSHIP_NOT_FOUND. */
export async function getMembership(
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
 * holds the tenant's row lock (see lockTenantForWrite), so this count cannot go stale before commit,
 * whichever process the racing request reached.
 */
async function assertNotLastOwner(db: Executor, membership: MembershipWithUser): Promise<void> {
  if (membership.role === 'OWNER' && (await countOwners(db, membership.tenantId)) <= 1) {
    throw new LastOwnerError();
  }
}

export type MembershipPage = Page<MembershipWithUser> & { total?: number };

/** A page of the tenant's members in the order asked for; with includeTotal, how many match. */
export async function listMembershipsPage(
  db: Database,
  access: TenantAccess,
  query: ListMembershipsQuery,
): Promise<MembershipPage> {
  const filters = { tenantId: access.tenantId, role: query.role, q: query.q };
  const [page, total] = await Promise.all([
    pageInOrder(db, filters, query),
    query.includeTotal ? countMemberships(db, filters) : undefined,
  ]);
  return total === undefined ? page : { ...page, total };
}

async function pageInOrder(
  db: Database,
  filters: ListFilters,
  query: ListMembershipsQuery,
): Promise<Page<MembershipWithUser>> {
  const limit = query.limit + 1;
  const { sort } = query;
  if (sort === 'createdAt') {
    const rows = await listMemberships(db, { ...filters, afterId: decodeCursor(query.cursor), limit });
    return toPage(rows, query.limit);
  }
  const after = decodeSortedCursor(query.cursor, sort);
  const rows = await listMembershipsSorted(db, { ...filters, sort, after, limit });
  return toPage(rows, query.limit, (last) => encodeSortedCursor(sort, { key: last.sortKey, id: last.id }));
}

/**
 * Writes take the transaction their access was decided in (see routing/request-transaction.ts):
 * the tenant's row is locked, and `access` was read under that lock.
 */
export async function createMembership(
  tx: Transaction,
  access: TenantAccess,
  body: CreateMembershipBody,
): Promise<MembershipWithUser> {
  assertWithinLevel(access, body.role, `You may not give the role ${body.role}`);
  const user = await getOrInviteUser(tx, body, 'body.email');
  const invitedDisplayName = 'email' in body ? (body.displayName ?? null) : null;
  try {
    const row = await insertMembership(tx, {
      tenantId: access.tenantId,
      userId: user.id,
      role: body.role,
      invitedDisplayName,
    });
    return { ...row, user: { email: user.email, displayName: user.displayName } };
  } catch (error) {
    if (isUniqueViolation(error, MEMBERSHIP_KEY)) throw new MembershipAlreadyExistsError();
    throw error;
  }
}

export async function changeMembershipRole(
  tx: Transaction,
  access: TenantAccess,
  membershipId: string,
  body: UpdateMembershipBody,
  ifMatch: string | undefined,
): Promise<MembershipWithUser> {
  const membership = await getMembership(tx, access.tenantId, membershipId);
  assertWithinLevel(
    access,
    membership.role,
    `You may not change a membership whose role is ${membership.role}`,
  );
  assertWithinLevel(access, body.role, `You may not give the role ${body.role}`);
  assertIfMatch(ifMatch, membership.version);
  if (body.role === membership.role) return membership;
  if (body.role !== 'OWNER') await assertNotLastOwner(tx, membership);
  const updated = await updateMembershipRole(tx, access.tenantId, membershipId, body.role);
  if (!updated) throw new MembershipNotFoundError(membershipId);
  return { ...updated, user: membership.user };
}

export async function removeMembership(
  tx: Transaction,
  access: TenantAccess,
  membershipId: string,
  ifMatch: string | undefined,
): Promise<void> {
  const membership = await getMembership(tx, access.tenantId, membershipId);
  assertWithinLevel(
    access,
    membership.role,
    `You may not remove a membership whose role is ${membership.role}`,
  );
  assertIfMatch(ifMatch, membership.version);
  await assertNotLastOwner(tx, membership);
  if (!(await deleteMembership(tx, access.tenantId, membershipId)))
    throw new MembershipNotFoundError(membershipId);
}

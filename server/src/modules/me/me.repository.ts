import { and, asc, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { guardianLinks, tenantMemberships, tenants } from '../../db/schema.js';
import { statusOf } from '../../rules/membership-status.sql.js';

/*
 * GET /me in one statement, as every read: the caller, then its memberships and its guardianships
 * (ACTIVE links, as guardian) side by side in one list, told apart by `kind`. A guardianship has
 * no membership's columns (typed `never`: null, read only by kind), a membership no student.
 */
const callerWithMemberships = preparedPer((db) =>
  selectWithCaller(
    db,
    {
      rule: 'authenticated',
      orderBy: (item) =>
        [item.kind, item.tenantMembershipId, item.tenantId, item.studentUserId].map((column) =>
          asc(column as SQL),
        ),
    },
    (_gate, caller) =>
      db
        .select({
          // First, and never null: drizzle reads a left-joined row as absent when its first column is.
          tenantId: tenantMemberships.tenantId,
          kind: sql<'membership' | 'ward'>`'membership'`.as('kind'),
          tenantMembershipId: tenantMemberships.id,
          tenantSlug: tenants.slug,
          tenantName: tenants.name,
          role: tenantMemberships.role,
          status: statusOf().as('status'),
          startsAt: tenantMemberships.startsAt,
          endsAt: tenantMemberships.endsAt,
          studentUserId: sql<string | null>`null::uuid`.as('student_user_id'),
        })
        .from(tenantMemberships)
        // Every membership, whatever its status (the member should see why a tenant is closed to
        // them), but none of a deleted tenant: that one is gone, for its members as for everyone.
        .innerJoin(tenants, and(eq(tenants.id, tenantMemberships.tenantId), isNull(tenants.deletedAt)))
        .where(eq(tenantMemberships.userId, caller.id))
        .unionAll(
          db
            .select({
              tenantId: guardianLinks.tenantId,
              kind: sql<'membership' | 'ward'>`'ward'`.as('kind'),
              tenantMembershipId: sql<never>`null::uuid`.as('tenant_membership_id'),
              tenantSlug: tenants.slug,
              tenantName: tenants.name,
              role: sql<never>`null::membership_role`.as('role'),
              status: sql<never>`null::text`.as('status'),
              startsAt: sql<never>`null::timestamptz`.as('starts_at'),
              endsAt: sql<never>`null::timestamptz`.as('ends_at'),
              studentUserId: guardianLinks.studentUserId,
            })
            .from(guardianLinks)
            .innerJoin(tenants, and(eq(tenants.id, guardianLinks.tenantId), isNull(tenants.deletedAt)))
            .where(and(eq(guardianLinks.guardianUserId, caller.id), eq(guardianLinks.status, 'ACTIVE'))),
        ),
  ).prepare('caller_with_memberships'),
);

/** The caller, its memberships and the students it is an ACTIVE guardian of, in one statement. */
export async function findCallerWithMemberships(db: Executor, subject: string) {
  return callerReadOf(await callerWithMemberships(db).execute({ subject }));
}

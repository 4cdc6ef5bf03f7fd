import { and, asc, eq, isNull, type SQL } from 'drizzle-orm';
import { callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { tenantMemberships, tenants } from '../../db/schema.js';
import { statusOf } from '../../rules/membership-status.sql.js';

const callerWithMemberships = preparedPer((db) =>
  selectWithCaller(
    db,
    { rule: 'authenticated', orderBy: (item) => [asc(item.tenantMembershipId as SQL)] },
    (_gate, caller) =>
      db
        .select({
          tenantMembershipId: tenantMemberships.id,
          tenantId: tenantMemberships.tenantId,
          tenantSlug: tenants.slug,
          tenantName: tenants.name,
          role: tenantMemberships.role,
          status: statusOf().as('status'),
          startsAt: tenantMemberships.startsAt,
          endsAt: tenantMemberships.endsAt,
        })
        .from(tenantMemberships)
        // Every membership, whatever its status (the member should see why a tenant is closed to
        // them), but none of a deleted tenant: that one is gone, for its members as for everyone.
        .innerJoin(tenants, and(eq(tenants.id, tenantMemberships.tenantId), isNull(tenants.deletedAt)))
        .where(eq(tenantMemberships.userId, caller.id))
        .orderBy(asc(tenantMemberships.id)),
  ).prepare('caller_with_memberships'),
);

/** The caller and its memberships, in one statement. */
export async function findCallerWithMemberships(db: Executor, subject: string) {
  return callerReadOf(await callerWithMemberships(db).execute({ subject }));
}

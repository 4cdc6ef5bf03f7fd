import { asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { tenantMemberships, tenants } from '../../db/schema.js';

const membershipsOfUser = preparedPer((db) =>
  db
    .select({
      tenantMembershipId: tenantMemberships.id,
      tenantId: tenants.id,
      tenantSlug: tenants.slug,
      tenantName: tenants.name,
      role: tenantMemberships.role,
    })
    .from(tenantMemberships)
    .innerJoin(tenants, eq(tenants.id, tenantMemberships.tenantId))
    .where(eq(tenantMemberships.userId, sql.placeholder('userId')))
    .orderBy(asc(tenantMemberships.id))
    .prepare('memberships_of_user'),
);

export async function listMembershipsOfUser(db: Executor, userId: string) {
  return membershipsOfUser(db).execute({ userId });
}

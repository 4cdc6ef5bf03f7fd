import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { tenantMemberships, tenants } from '../../db/schema.js';

export async function listMembershipsOfUser(db: Executor, userId: string) {
  return db
    .select({
      tenantMembershipId: tenantMemberships.id,
      tenantId: tenants.id,
      tenantSlug: tenants.slug,
      tenantName: tenants.name,
      role: tenantMemberships.role,
    })
    .from(tenantMemberships)
    .innerJoin(tenants, eq(tenants.id, tenantMemberships.tenantId))
    .where(eq(tenantMemberships.userId, userId))
    .orderBy(asc(tenantMemberships.id));
}

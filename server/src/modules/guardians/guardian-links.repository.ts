import type { GuardianLinkSource, GuardianLinkStatus, GuardianRelationship } from '@tms/contract';
import { and, asc, eq, inArray, ne, or, type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { type GuardianLinkRow, guardianLinks, tenantMemberships } from '../../db/schema.js';

/*
 * The changes of guardian links, each run under the lock of the link's tenant row: every writer of
 * a tenant's links takes it first (a tenant route's transaction, or the redeemer's own), so the
 * six-guardian count and the one-link-per-pair check read what the change commits against. The
 * unique index on (tenant, student, guardian) stays the last word on "one link per pair".
 */

/** The link, within its tenant (the scope rule): one of another tenant is not found. */
export async function findLinkInTenant(
  db: Executor,
  tenantId: string,
  guardianLinkId: string,
): Promise<GuardianLinkRow | undefined> {
  const [row] = await db
    .select()
    .from(guardianLinks)
    .where(and(eq(guardianLinks.tenantId, tenantId), eq(guardianLinks.id, guardianLinkId)));
  return row;
}

/** The pair's link, whatever its status. */
export async function findLinkOfPair(
  db: Executor,
  pair: { tenantId: string; studentUserId: string; guardianUserId: string },
): Promise<GuardianLinkRow | undefined> {
  const [row] = await db
    .select()
    .from(guardianLinks)
    .where(
      and(
        eq(guardianLinks.tenantId, pair.tenantId),
        eq(guardianLinks.studentUserId, pair.studentUserId),
        eq(guardianLinks.guardianUserId, pair.guardianUserId),
      ),
    );
  return row;
}

/** How many ACTIVE guardians the student has in the tenant. */
export async function countActiveGuardians(
  db: Executor,
  tenantId: string,
  studentUserId: string,
): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(guardianLinks)
    .where(
      and(
        eq(guardianLinks.tenantId, tenantId),
        eq(guardianLinks.studentUserId, studentUserId),
        eq(guardianLinks.status, 'ACTIVE'),
      ),
    );
  return row?.count ?? 0;
}

export async function insertLink(
  db: Executor,
  link: {
    tenantId: string;
    studentUserId: string;
    guardianUserId: string;
    relationship: GuardianRelationship;
    status: GuardianLinkStatus;
    source: GuardianLinkSource;
  },
): Promise<GuardianLinkRow> {
  const [row] = await db
    .insert(guardianLinks)
    .values({ id: uuidv7(), ...link })
    .returning();
  if (!row) throw new Error('insert into guardian_links returned no row');
  return row;
}

/** A REVOKED (or PENDING) link made ACTIVE again, as the new way it was made says. */
export async function reactivateLink(
  db: Executor,
  tenantId: string,
  guardianLinkId: string,
  change: { relationship: GuardianRelationship; source: GuardianLinkSource },
): Promise<GuardianLinkRow> {
  const [row] = await db
    .update(guardianLinks)
    .set({ ...change, status: 'ACTIVE', revokedAt: null, updatedAt: sql`now()` })
    .where(and(eq(guardianLinks.tenantId, tenantId), eq(guardianLinks.id, guardianLinkId)))
    .returning();
  if (!row) throw new Error('a guardian link to reactivate was not found under its tenant lock');
  return row;
}

/** Revokes the tenant's links matching `which` that are not REVOKED yet; answers them as they were and are. */
/** A link a revocation still has to end: ACTIVE or SUSPENDED. */
export const notRevoked = ne(guardianLinks.status, 'REVOKED');

async function revokeWhere(
  db: Executor,
  tenantId: string,
  which: SQL | undefined,
): Promise<{ before: GuardianLinkRow[]; after: GuardianLinkRow[] }> {
  const scope = and(eq(guardianLinks.tenantId, tenantId), notRevoked, which);
  const before = await db.select().from(guardianLinks).where(scope).orderBy(asc(guardianLinks.id));
  if (before.length === 0) return { before, after: [] };
  const after = await db
    .update(guardianLinks)
    .set({ status: 'REVOKED', revokedAt: sql`now()`, updatedAt: sql`now()` })
    .where(
      and(
        eq(guardianLinks.tenantId, tenantId),
        inArray(
          guardianLinks.id,
          before.map((link) => link.id),
        ),
      ),
    )
    .returning();
  after.sort((x, y) => x.id.localeCompare(y.id));
  return { before, after };
}

/** Revokes a link read under the tenant's lock (so it is there, and not REVOKED yet). */
export async function revokeLink(
  db: Executor,
  tenantId: string,
  guardianLinkId: string,
): Promise<GuardianLinkRow | undefined> {
  const [row] = await db
    .update(guardianLinks)
    .set({ status: 'REVOKED', revokedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(guardianLinks.tenantId, tenantId), eq(guardianLinks.id, guardianLinkId)))
    .returning();
  return row;
}

/** Every live link of these students in the tenant: they left it. */
export function revokeStudentsLinks(db: Executor, tenantId: string, studentUserIds: string[]) {
  return revokeWhere(db, tenantId, inArray(guardianLinks.studentUserId, studentUserIds));
}

/** The person's links, as guardian or as student, in every tenant: what their erasure deletes. */
export async function deleteLinksOfPerson(db: Executor, userId: string): Promise<GuardianLinkRow[]> {
  return db
    .delete(guardianLinks)
    .where(or(eq(guardianLinks.guardianUserId, userId), eq(guardianLinks.studentUserId, userId)))
    .returning();
}

/** Whether the user holds a STUDENT membership in the tenant, in any status. */
export async function isStudentOf(db: Executor, tenantId: string, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: tenantMemberships.id })
    .from(tenantMemberships)
    .where(
      and(
        eq(tenantMemberships.tenantId, tenantId),
        eq(tenantMemberships.userId, userId),
        eq(tenantMemberships.role, 'STUDENT'),
      ),
    );
  return row !== undefined;
}

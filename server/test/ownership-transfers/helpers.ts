import type { Role } from '@tms/contract';
import { asc, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { ownershipTransfers, tenantMemberships, tenants } from '../../src/db/schema.js';
import { addMember, createTenantFixture } from '../support/factories.js';
import type { TestServer } from '../support/harness.js';

export const DAY_MS = 86_400_000;

/** A tenant with its OWNER, an ADMIN, a TEACHER (the usual nominee) and a STUDENT. */
export async function transferWorld(h: TestServer) {
  const t = await createTenantFixture(h);
  const admin = await addMember(h, t.tenantId, 'ADMIN');
  const teacher = await addMember(h, t.tenantId, 'TEACHER');
  const student = await addMember(h, t.tenantId, 'STUDENT');
  return {
    tenantId: t.tenantId,
    owner: { actor: t.owner, membershipId: t.ownerMembershipId },
    admin,
    teacher,
    student,
  };
}
export type TransferWorld = Awaited<ReturnType<typeof transferWorld>>;

/** A transfer's row as stored, read behind the API's back. */
export async function transferRow(db: Database, transferId: string) {
  const [row] = await db.select().from(ownershipTransfers).where(eq(ownershipTransfers.id, transferId));
  return row;
}

/** Everything a refused request must leave as it was: the tenant's memberships and transfers. */
export async function tenantSnapshot(db: Database, tenantId: string) {
  const memberships = await db
    .select()
    .from(tenantMemberships)
    .where(eq(tenantMemberships.tenantId, tenantId))
    .orderBy(asc(tenantMemberships.id));
  const transfers = await db
    .select()
    .from(ownershipTransfers)
    .where(eq(ownershipTransfers.tenantId, tenantId))
    .orderBy(asc(ownershipTransfers.id));
  return JSON.stringify({ memberships, transfers });
}

/** Time passes: the transfer's expiry is moved into the past rather than waited for. */
export async function expire(db: Database, transferId: string): Promise<void> {
  await db
    .update(ownershipTransfers)
    .set({ expiresAt: new Date(Date.now() - 60_000) })
    .where(eq(ownershipTransfers.id, transferId));
}

/** What another route (suspension, term dates, soft delete) would have written meanwhile. */
export const behindTheApi = {
  suspend: (db: Database, membershipId: string) =>
    db
      .update(tenantMemberships)
      .set({ suspendedAt: new Date(), suspensionReason: 'test' })
      .where(eq(tenantMemberships.id, membershipId)),
  endTerm: (db: Database, membershipId: string) =>
    db
      .update(tenantMemberships)
      .set({ endsAt: new Date(Date.now() - DAY_MS) })
      .where(eq(tenantMemberships.id, membershipId)),
  startLater: (db: Database, membershipId: string) =>
    db
      .update(tenantMemberships)
      .set({ startsAt: new Date(Date.now() + DAY_MS) })
      .where(eq(tenantMemberships.id, membershipId)),
  deleteTenant: (db: Database, tenantId: string) =>
    db.update(tenants).set({ deletedAt: new Date() }).where(eq(tenants.id, tenantId)),
};

export async function roleOf(db: Database, membershipId: string) {
  const [row] = await db
    .select({ role: tenantMemberships.role, version: tenantMemberships.version })
    .from(tenantMemberships)
    .where(eq(tenantMemberships.id, membershipId));
  return row;
}

/** An SDK call that must fail with this status and code. */
export async function expectApiError(call: Promise<unknown>, status: number, code: string): Promise<void> {
  await expect(call).rejects.toMatchObject({ name: 'ApiError', status, code });
}

export const roles = (rows: { role: Role }[]) => rows.map((r) => r.role).sort();

import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { type PairingCodeRow, pairingCodes } from '../../db/schema.js';

/** A code that may still link someone: not used, not revoked, not expired. */
export const live = and(
  isNull(pairingCodes.usedAt),
  isNull(pairingCodes.revokedAt),
  gt(pairingCodes.expiresAt, sql`now()`),
);

/** The student's live codes in the tenant, oldest first. */
export async function liveCodesOf(
  db: Executor,
  tenantId: string,
  studentUserId: string,
): Promise<PairingCodeRow[]> {
  return db
    .select()
    .from(pairingCodes)
    .where(and(eq(pairingCodes.tenantId, tenantId), eq(pairingCodes.studentUserId, studentUserId), live))
    .orderBy(asc(pairingCodes.id));
}

export async function revokeCodes(db: Executor, tenantId: string, ids: string[]): Promise<PairingCodeRow[]> {
  if (ids.length === 0) return [];
  return db
    .update(pairingCodes)
    .set({ revokedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(pairingCodes.tenantId, tenantId), inArray(pairingCodes.id, ids)))
    .returning();
}

export async function insertCode(
  db: Executor,
  code: { tenantId: string; studentUserId: string; codeHash: string; createdByUserId: string; days: number },
): Promise<PairingCodeRow> {
  const { days, ...values } = code;
  const [row] = await db
    .insert(pairingCodes)
    .values({ id: uuidv7(), ...values, expiresAt: sql`now() + make_interval(days => ${days}::int)` })
    .returning();
  if (!row) throw new Error('insert into pairing_codes returned no row');
  return row;
}

/**
 * Which tenant's lock a redeemer must take: the code names its tenant only in its row, found by
 * the code's keyed hash alone (the one look-up across tenants a guardian makes).
 */
export async function tenantOfCode(db: Executor, codeHash: string): Promise<string | undefined> {
  const [row] = await db
    .select({ tenantId: pairingCodes.tenantId })
    .from(pairingCodes)
    .where(eq(pairingCodes.codeHash, codeHash));
  return row?.tenantId;
}

/** The code, if still live, within its tenant: read under the tenant's lock. */
export async function findLiveCode(
  db: Executor,
  tenantId: string,
  codeHash: string,
): Promise<PairingCodeRow | undefined> {
  const [row] = await db
    .select()
    .from(pairingCodes)
    .where(and(eq(pairingCodes.tenantId, tenantId), eq(pairingCodes.codeHash, codeHash), live));
  return row;
}

export async function markCodeUsed(db: Executor, tenantId: string, pairingCodeId: string): Promise<void> {
  await db
    .update(pairingCodes)
    .set({ usedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(pairingCodes.tenantId, tenantId), eq(pairingCodes.id, pairingCodeId)));
}

/** The students' live codes die with their memberships: nobody may become their guardian by one. */
export async function revokeStudentsCodes(
  db: Executor,
  tenantId: string,
  studentUserIds: string[],
): Promise<void> {
  await db
    .update(pairingCodes)
    .set({ revokedAt: sql`now()`, updatedAt: sql`now()` })
    .where(
      and(eq(pairingCodes.tenantId, tenantId), inArray(pairingCodes.studentUserId, studentUserIds), live),
    );
}

/** An erased student's codes, in every tenant: none may link anyone to them any more. */
export async function deleteCodesOfStudent(db: Executor, userId: string): Promise<void> {
  await db.delete(pairingCodes).where(eq(pairingCodes.studentUserId, userId));
}

import { and, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/database.js';
import { guardianInvitations } from '../../db/schema.js';
import type { AuditContext } from '../audit/audit-context.js';
import { revokeGuardianInvitationsWhere } from '../guardians/guardian-links.service.js';
import type { Pseudonym } from './pseudonym.js';

/*
 * The erasure's share of guardian invitations (issue 29). An invitation shows its invitee's address:
 * those addressed to the person (or accepted by them) are pseudonymised like membership
 * invitations, and the pending ones revoked; those naming the person as the student are revoked
 * (they hold only the student's opaque id, and the guardian's address, which is not the person's).
 * Those the person made keep `createdBy`, an opaque id, as membership invitations keep
 * `invitedByUserId`. Each revoke has its event, under the tenant locks the erasure took
 * (erasure.repository.ts: lockTenantsOfPerson).
 */

const g = guardianInvitations;

const addressedTo = (canonicalEmail: string | null): SQL =>
  canonicalEmail === null ? sql`false` : eq(g.emailCanonical, canonicalEmail);

/** The tenants whose guardian invitations the erasure changes: the pending ones to or for the person. */
export const guardianInvitationTenantsOf = (tx: Transaction, userId: string, canonicalEmail: string | null) =>
  tx
    .select({ tenantId: g.tenantId })
    .from(g)
    .where(and(eq(g.status, 'PENDING'), or(addressedTo(canonicalEmail), eq(g.studentUserId, userId))));

/** The guardian invitations that are the person's: addressed to their address, or accepted by them. */
export async function guardianInvitationsOfPerson(
  tx: Transaction,
  userId: string,
  canonicalEmail: string | null,
): Promise<string[]> {
  const rows = await tx
    .select({ id: g.id })
    .from(g)
    .where(or(addressedTo(canonicalEmail), eq(g.guardianUserId, userId)));
  return rows.map((row) => row.id);
}

/** They show the pseudonymous address; `updated_at` stays, as for membership invitations. */
export async function pseudonymiseGuardianInvitations(
  tx: Transaction,
  ids: string[],
  pseudonym: Pseudonym,
): Promise<void> {
  if (ids.length === 0) return;
  await tx
    .update(g)
    .set({ email: pseudonym.email, emailCanonical: pseudonym.email })
    .where(inArray(g.id, ids));
}

/** Nobody can accept them any more: the person's own pending ones, and those for them as student. */
export function revokeGuardianInvitationsOf(
  tx: Transaction,
  context: AuditContext,
  userId: string,
  ids: string[],
): Promise<number> {
  const which =
    ids.length === 0 ? eq(g.studentUserId, userId) : or(inArray(g.id, ids), eq(g.studentUserId, userId));
  return revokeGuardianInvitationsWhere(tx, context, which as SQL);
}

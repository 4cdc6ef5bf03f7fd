import { and, eq, exists, or, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { guardianInvitations, guardianLinks, pairingCodes } from '../../db/schema.js';
import { OPEN_INVITATION } from './guardian-invitations.repository.js';
import { notRevoked } from './guardian-links.repository.js';
import { live } from './pairing-codes.repository.js';

/**
 * Whether a student holds anything in the tenant that leaving it revokes (guardian-links.service.ts:
 * studentsLeft): a link not yet REVOKED, a live pairing code, an open guardian invitation. The
 * same conditions the revoking statements use, so "none" means they would change nothing.
 *
 * Read under the tenant's lock with the membership a removal decides on: every writer of links,
 * codes and guardian invitations takes that lock too, so the answer holds until the commit, and
 * the usual removal (a student nobody is the guardian of) sends none of the revoking statements.
 */
export const hasGuardianTies = (tenantId: SQLWrapper, studentUserId: SQLWrapper): SQL<boolean> =>
  sql<boolean>`${or(
    exists(
      sql`(select 1 from ${guardianLinks} where ${and(
        eq(guardianLinks.tenantId, tenantId),
        eq(guardianLinks.studentUserId, studentUserId),
        notRevoked,
      )})`,
    ),
    exists(
      sql`(select 1 from ${pairingCodes} where ${and(
        eq(pairingCodes.tenantId, tenantId),
        eq(pairingCodes.studentUserId, studentUserId),
        live,
      )})`,
    ),
    exists(
      sql`(select 1 from ${guardianInvitations} where ${and(
        eq(guardianInvitations.tenantId, tenantId),
        eq(guardianInvitations.studentUserId, studentUserId),
        ...OPEN_INVITATION,
      )})`,
    ),
  )}`;

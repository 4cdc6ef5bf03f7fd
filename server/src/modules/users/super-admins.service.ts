import type { Executor } from '../../db/database.js';
import type { UserRow } from '../../db/schema.js';
import { type AuditContext, SYSTEM_AUDIT } from '../audit/audit-context.js';
import { recordAuditEvent } from '../audit/audit-events.repository.js';
import { clearSuperAdminFlag, lockUserBySubject, upsertSuperAdminFlag } from './users.repository.js';

/** What a grant's or revocation's event shows of the user: no email or name to erase later. */
const flagOf = (user: UserRow) => ({
  userId: user.id,
  subject: user.subject,
  isSuperAdmin: user.isSuperAdmin,
});

/**
 * Grants (`npm run super-admin -- grant`, SUPER_ADMIN_SUBJECTS at start) and revocations are
 * platform events. One already in place changes nothing, and records nothing: a server that
 * starts with SUPER_ADMIN_SUBJECTS adds no event at each start.
 */
export async function grantSuperAdmin(
  db: Executor,
  subject: string,
  audit: AuditContext = SYSTEM_AUDIT,
): Promise<void> {
  await db.transaction(async (tx) => {
    const before = await lockUserBySubject(tx, subject);
    if (before?.isSuperAdmin) return;
    const after = await upsertSuperAdminFlag(tx, subject);
    if (after) await recordSuperAdminEvent(tx, audit, 'super_admin.granted', before ?? null, after);
  });
}

/** False when no user has the subject. */
export async function revokeSuperAdmin(
  db: Executor,
  subject: string,
  audit: AuditContext = SYSTEM_AUDIT,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const before = await lockUserBySubject(tx, subject);
    if (!before) return false;
    if (!before.isSuperAdmin) return true;
    const after = await clearSuperAdminFlag(tx, subject);
    if (after) await recordSuperAdminEvent(tx, audit, 'super_admin.revoked', before, after);
    return true;
  });
}

function recordSuperAdminEvent(
  tx: Executor,
  context: AuditContext,
  action: 'super_admin.granted' | 'super_admin.revoked',
  before: UserRow | null,
  after: UserRow,
): Promise<void> {
  return recordAuditEvent(tx, {
    tenantId: null,
    action,
    target: { type: 'user', id: after.id },
    before: before && flagOf(before),
    after: flagOf(after),
    context,
  });
}

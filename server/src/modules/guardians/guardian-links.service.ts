import type { ListGuardianLinksQuery, Role } from '@tms/contract';
import type { SQL } from 'drizzle-orm';
import type { TenantAccess } from '../../access/decide-access.js';
import { parsedAfterAccess, type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database, Executor } from '../../db/database.js';
import type { GuardianLinkRow } from '../../db/schema.js';
import { GuardianLinkNotFoundError, StudentNotFoundError } from '../../errors/index.js';
import { decodeCursor, type Page, toPage } from '../../pagination/cursor.js';
import { linkRemoverProblem } from '../../rules/guardian-rules.js';
import type { AuditContext } from '../audit/audit-context.js';
import type { TenantWrite } from '../shared/tenant-write.js';
import { recordGuardianInvitationEvent, recordLinkEvent } from './guardian-events.js';
import { ofStudentsIn, revokePendingGuardianInvitations } from './guardian-invitations.repository.js';
import { findLinkInTenant, revokeLink, revokeStudentsLinks } from './guardian-links.repository.js';
import {
  type AccessView,
  findAccessOfAs,
  listLinksAs,
  listStudentGuardiansAs,
  type SchoolLinkView,
} from './guardian-reads.repository.js';
import { revokeStudentsCodes } from './pairing-codes.repository.js';

const tenantIdOf = (requester: Requester): string => {
  if (requester.tenantId === undefined) throw new Error('a guardian route without a tenant');
  return requester.tenantId;
};

/** The student's links (REVOKED ones too: the school sees what was), or STUDENT_NOT_FOUND. */
export async function listStudentGuardians(
  db: Database,
  requester: Requester,
  userId: string,
): Promise<{ access: TenantAccess; links: SchoolLinkView[] }> {
  const tenantId = tenantIdOf(requester);
  const { access, items } = await readAsCaller(db, requester, (subject) =>
    listStudentGuardiansAs(db, subject, tenantId, userId),
  );
  if (!access) throw new Error('a tenant read without its access');
  if (items.length === 0) throw new StudentNotFoundError(userId);
  const links = items.filter((item): item is typeof item & SchoolLinkView => item.id !== null);
  return { access, links };
}

export async function listLinksPage(
  db: Database,
  requester: Requester,
  query: ListGuardianLinksQuery,
): Promise<{ access: TenantAccess; page: Page<SchoolLinkView> }> {
  const tenantId = tenantIdOf(requester);
  const afterId = await parsedAfterAccess(db, requester, () => decodeCursor(query.cursor));
  const { access, items } = await readAsCaller(db, requester, (subject) =>
    listLinksAs(db, subject, {
      tenantId,
      ...(query.status && { status: query.status }),
      ...(afterId !== undefined && { afterId }),
      limit: query.limit + 1,
    }),
  );
  if (!access) throw new Error('a tenant read without its access');
  return { access, page: toPage(items, query.limit) };
}

/** What the platform's other apps decide on: a user's role and status here, and whose guardian they are. */
export async function describeAccess(
  db: Database,
  requester: Requester,
  userId: string,
): Promise<AccessView> {
  const tenantId = tenantIdOf(requester);
  const { items } = await readAsCaller(db, requester, (subject) =>
    findAccessOfAs(db, subject, tenantId, userId),
  );
  return items[0] ?? { role: null, status: null, guardianOf: [] };
}

/** Revokes the link, in the transaction that locks its tenant; a REVOKED one is answered as it is. */
export async function removeLink(
  { tx, access, caller, audit }: TenantWrite,
  guardianLinkId: string,
): Promise<GuardianLinkRow> {
  const link = await findLinkInTenant(tx, access.tenantId, guardianLinkId);
  const refused = linkRemoverProblem(access, caller.userId, link);
  if (refused) throw refused;
  if (!link) throw new GuardianLinkNotFoundError(guardianLinkId);
  if (link.status === 'REVOKED') return link;
  const revoked = await revokeLink(tx, access.tenantId, guardianLinkId);
  if (!revoked) throw new Error('a live guardian link was not revoked under its tenant lock');
  await recordLinkEvent(tx, audit, 'guardian_link.revoked', link, revoked);
  return revoked;
}

/**
 * Students who leave the tenant take their guardians' links, live pairing codes and pending guardian
 * invitations with them: a guardian of someone no longer at the school has nothing there to see. Called by every removal of
 * memberships (by hand, by the directory, by a roster sync), in its transaction (the tenant is
 * locked), with the removal's own audit context; members of other roles are passed over, and so
 * are students read under the same lock as holding nothing to revoke (`guardianTies` false:
 * guardian-ties.sql.ts), for whom no statement is sent.
 */
export async function studentsLeft(
  tx: Executor,
  audit: AuditContext,
  tenantId: string,
  removed: { userId: string; role: Role; guardianTies?: boolean }[],
): Promise<void> {
  const studentUserIds = removed
    .filter((m) => m.role === 'STUDENT' && m.guardianTies !== false)
    .map((m) => m.userId);
  if (studentUserIds.length === 0) return;
  // Sent together (one round trip, under the tenant's lock): most students have no guardian, and
  // then nothing else is sent.
  const [{ before, after }] = await Promise.all([
    revokeStudentsLinks(tx, tenantId, studentUserIds),
    revokeStudentsCodes(tx, tenantId, studentUserIds),
    revokeGuardianInvitationsWhere(tx, audit, ofStudentsIn(tenantId, studentUserIds)),
  ]);
  for (const revoked of after) {
    const was = before.find((link) => link.id === revoked.id) ?? null;
    await recordLinkEvent(tx, audit, 'guardian_link.revoked', was, revoked);
  }
}

/** The PENDING invitations `which` names, revoked, each with its event (leaving the tenant, erasure). */
export async function revokeGuardianInvitationsWhere(tx: Executor, audit: AuditContext, which: SQL) {
  const { before, after } = await revokePendingGuardianInvitations(tx, which);
  for (const revoked of after) {
    const was = before.find((invitation) => invitation.id === revoked.id) ?? null;
    await recordGuardianInvitationEvent(tx, audit, 'guardian_invitation.revoked', was, revoked);
  }
  return after.length;
}

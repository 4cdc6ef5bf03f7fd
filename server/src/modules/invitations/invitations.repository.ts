import type { InvitationStatus, Role } from '@tms/contract';
import { and, asc, eq, gt, inArray, isNull, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { invitations, tenants } from '../../db/schema.js';
import { shownInvitationStatus } from '../../rules/invitation-status.sql.js';

/** An invitation's status as the API shows it: a PENDING row past `expires_at` is EXPIRED. */
export const statusNow = shownInvitationStatus(invitations.status, invitations.expiresAt);

/** An invitation as the service reads it: its status as shown, with the canonical address it is for. */
export type InvitationView = {
  id: string;
  tenantId: string;
  email: string;
  emailCanonical: string;
  displayName: string | null;
  role: Role;
  status: InvitationStatus;
  expiresAt: Date;
  invitedByUserId: string | null;
  acceptedAt: Date | null;
  acceptedUserId: string | null;
  createdAt: Date;
  updatedAt: Date;
};

/** The columns of an InvitationView, for reads and for what a change returns. */
export const invitationColumns = {
  id: invitations.id,
  tenantId: invitations.tenantId,
  email: invitations.email,
  emailCanonical: invitations.emailCanonical,
  displayName: invitations.displayName,
  role: invitations.role,
  status: statusNow.as('status'),
  expiresAt: invitations.expiresAt,
  invitedByUserId: invitations.invitedByUserId,
  acceptedAt: invitations.acceptedAt,
  acceptedUserId: invitations.acceptedUserId,
  createdAt: invitations.createdAt,
  updatedAt: invitations.updatedAt,
};

/** Invitation reads of a tenant are tenant routes: gated by the tenant-admin rule. */
const TENANT_READ = { rule: 'tenantAdmin', tenantId: sql.placeholder('tenantId') } as const;

/** The scope rule lives in the query: another tenant's invitation is simply not found. */
export const inTenant = (tenantId: string | Placeholder, invitationId: string | Placeholder) =>
  and(eq(invitations.tenantId, tenantId), eq(invitations.id, invitationId));

const invitationWithCaller = preparedPer((db) =>
  selectWithCaller(db, TENANT_READ, (gate) =>
    db
      .select(invitationColumns)
      .from(invitations)
      .where(and(gate, inTenant(sql.placeholder('tenantId'), sql.placeholder('invitationId'))))
      .limit(1),
  ).prepare('invitation_with_caller'),
);

/** The caller (with its role in the tenant) and the invitation, in one statement. */
export async function findInvitationAs(
  db: Executor,
  subject: string,
  tenantId: string,
  invitationId: string,
): Promise<CallerRead<InvitationView>> {
  return callerReadOf(await invitationWithCaller(db).execute({ subject, tenantId, invitationId }));
}

export type InvitationFilters = { tenantId: string; statuses?: InvitationStatus[] };

/** A page in creation order; unfiltered pages (the common ones) are prepared, with and without a cursor. */
function invitationsPage(db: Executor, filters: { statuses?: InvitationStatus[]; after: boolean }) {
  return selectWithCaller(db, { ...TENANT_READ, orderBy: (item) => [asc(item.id as SQL)] }, (gate) =>
    db
      .select(invitationColumns)
      .from(invitations)
      .where(
        and(
          gate,
          eq(invitations.tenantId, sql.placeholder('tenantId')),
          filters.after ? gt(invitations.id, sql.placeholder('afterId')) : undefined,
          filters.statuses ? inArray(statusNow, filters.statuses) : undefined,
        ),
      )
      .orderBy(asc(invitations.id))
      .limit(sql.placeholder('limit')),
  );
}

const UNFILTERED = {
  first: preparedPer((db) => invitationsPage(db, { after: false }).prepare('invitations_page_first')),
  next: preparedPer((db) => invitationsPage(db, { after: true }).prepare('invitations_page_next')),
};

/** The caller (with its role in the tenant) and a page of the tenant's invitations, in one statement. */
export async function listInvitationsAs(
  db: Executor,
  subject: string,
  filters: InvitationFilters & { afterId?: string; limit: number },
): Promise<CallerRead<InvitationView>> {
  const after = filters.afterId !== undefined;
  const statement = filters.statuses
    ? invitationsPage(db, { statuses: filters.statuses, after })
    : (after ? UNFILTERED.next : UNFILTERED.first)(db);
  const values = { subject, tenantId: filters.tenantId, afterId: filters.afterId, limit: filters.limit };
  return callerReadOf(await statement.execute(values));
}

export type MyInvitationView = InvitationView & { tenantSlug: string; tenantName: string };

const myInvitations = preparedPer((db) =>
  selectWithCaller(db, { rule: 'authenticated', orderBy: (item) => [asc(item.id as SQL)] }, (_gate, caller) =>
    db
      .select({ ...invitationColumns, tenantSlug: tenants.slug, tenantName: tenants.name })
      .from(invitations)
      // A deleted tenant's invitations are as gone as the tenant.
      .innerJoin(tenants, and(eq(tenants.id, invitations.tenantId), isNull(tenants.deletedAt)))
      // Only the address the identity provider verified (see docs/identity.md): a caller without
      // one has a null canonical address, which equals nothing.
      .where(
        and(
          eq(invitations.emailCanonical, caller.emailCanonical),
          eq(invitations.status, 'PENDING'),
          gt(invitations.expiresAt, sql`now()`),
        ),
      )
      .orderBy(asc(invitations.id)),
  ).prepare('my_invitations'),
);

/** The caller and the pending invitations addressed to its verified email, in one statement. */
export async function listMyInvitationsAs(
  db: Executor,
  subject: string,
): Promise<CallerRead<MyInvitationView>> {
  return callerReadOf(await myInvitations(db).execute({ subject }));
}

import type { JoinCodeStatus, Role } from '@tms/contract';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { joinBlocks, joinCodes, joinRequests, tenantMemberships, tenants } from '../../db/schema.js';
import { joinCodeStatus } from './join-codes.repository.js';

/** What GET /join/:code decides on: the code, its tenant, and where the caller stands there. */
export type JoinPreviewView = {
  tenantName: string;
  tenantSlug: string;
  role: Role;
  status: JoinCodeStatus;
  requiresApproval: boolean;
  isMember: boolean;
  isBlocked: boolean;
  hasPendingRequest: boolean;
};

const preview = preparedPer((db) =>
  selectWithCaller(db, { rule: 'authenticated' }, (_gate, caller) =>
    db
      .select({
        tenantName: tenants.name,
        tenantSlug: tenants.slug,
        role: joinCodes.role,
        status: joinCodeStatus.as('status'),
        requiresApproval: joinCodes.requiresApproval,
        isMember: sql<boolean>`exists (select 1 from ${tenantMemberships}
          where ${tenantMemberships.tenantId} = ${joinCodes.tenantId} and ${tenantMemberships.userId} = ${caller.id})`.as(
          'is_member',
        ),
        isBlocked: sql<boolean>`exists (select 1 from ${joinBlocks}
          where ${joinBlocks.tenantId} = ${joinCodes.tenantId} and ${joinBlocks.userId} = ${caller.id})`.as(
          'is_blocked',
        ),
        hasPendingRequest: sql<boolean>`exists (select 1 from ${joinRequests}
          where ${joinRequests.tenantId} = ${joinCodes.tenantId} and ${joinRequests.userId} = ${caller.id}
            and ${joinRequests.status} = 'PENDING' and ${joinRequests.expiresAt} > now())`.as(
          'has_pending_request',
        ),
      })
      .from(joinCodes)
      // A deleted tenant's codes are as gone as the tenant.
      .innerJoin(tenants, and(eq(tenants.id, joinCodes.tenantId), isNull(tenants.deletedAt)))
      .where(eq(joinCodes.lookupHash, sql.placeholder('lookupHash'))),
  ).prepare('join_code_preview'),
);

/** The caller and what a code would do for it, found by the code's HMAC across tenants, in one statement. */
export async function previewJoinCodeAs(
  db: Executor,
  subject: string,
  lookupHash: string,
): Promise<CallerRead<JoinPreviewView>> {
  return callerReadOf(await preview(db).execute({ subject, lookupHash }));
}

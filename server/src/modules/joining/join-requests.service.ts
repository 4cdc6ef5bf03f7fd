import type { ApproveJoinRequestBody, ListJoinRequestsQuery } from '@tms/contract';
import { parsedAfterAccess, type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database } from '../../db/database.js';
import {
  JoinBlockNotFoundError,
  JoinRequestNotFoundError,
  JoinRequestNotPendingError,
  MembershipAlreadyExistsError,
  ValidationFailedError,
} from '../../errors/index.js';
import { decodeCursor, type Page, toPage } from '../../pagination/cursor.js';
import { approvedRoleProblem, codeRoleProblem, requestDeciderProblem } from '../../rules/join-rules.js';
import { refuse } from '../../rules/problems.js';
import { insertMembershipOfUser } from '../memberships/membership-changes.repository.js';
import type { MembershipWithUser } from '../memberships/memberships.repository.js';
import type { TenantWrite } from '../shared/tenant-write.js';
import {
  decideJoinRequest,
  deleteJoinBlock,
  findJoinRequestInTenant,
  insertJoinBlock,
  type JoinRequestView,
  listJoinRequestsAs,
} from './join-requests.repository.js';
import { recordJoinedMembership, recordJoinRequestEvent, recordUnblockEvent } from './joining-events.js';

export async function listJoinRequestsPage(
  db: Database,
  requester: Requester,
  query: ListJoinRequestsQuery,
): Promise<Page<JoinRequestView>> {
  const tenantId = requester.tenantId;
  if (tenantId === undefined) throw new Error('a join-request route without a tenant');
  const afterId = await parsedAfterAccess(db, requester, () => decodeCursor(query.cursor));
  const { items } = await readAsCaller(db, requester, (subject) =>
    listJoinRequestsAs(db, subject, { tenantId, status: query.status, afterId, limit: query.limit + 1 }),
  );
  return toPage(items, query.limit);
}

/**
 * A PENDING request of the tenant that the caller may decide (a TEACHER: those a STUDENT code opened), read
 * under the tenant's lock: an approval and the person's cancel run one after the other, and the
 * second finds the request no longer PENDING.
 */
async function pendingToDecide({ tx, access }: TenantWrite, joinRequestId: string): Promise<JoinRequestView> {
  const request = await findJoinRequestInTenant(tx, access.tenantId, joinRequestId);
  if (!request) throw new JoinRequestNotFoundError(joinRequestId);
  refuse(requestDeciderProblem(access.level, request));
  if (request.status !== 'PENDING') throw new JoinRequestNotPendingError(request.status);
  return request;
}

async function decided(
  write: TenantWrite,
  before: JoinRequestView,
  status: 'APPROVED' | 'REJECTED' | 'BLOCKED',
): Promise<JoinRequestView> {
  await decideJoinRequest(write.tx, write.access.tenantId, before.id, {
    status,
    decidedBy: write.caller.userId,
  });
  const after = await findJoinRequestInTenant(write.tx, write.access.tenantId, before.id);
  if (!after) throw new Error(`join request ${before.id} vanished under its tenant's lock`);
  return after;
}

/** The person becomes an ACTIVE member with at most the request's role. */
export async function approveJoinRequest(
  write: TenantWrite,
  joinRequestId: string,
  body: ApproveJoinRequestBody,
): Promise<MembershipWithUser> {
  const request = await pendingToDecide(write, joinRequestId);
  const role = body.role ?? request.role;
  const problem = approvedRoleProblem(request.role, role);
  if (problem) throw new ValidationFailedError([{ path: 'body.role', message: problem }]);
  refuse(codeRoleProblem(write.access.level, role));
  const { tx, access, audit } = write;
  // Added by hand meanwhile, in any status: the request has nothing left to give.
  const { person, added } = await insertMembershipOfUser(tx, {
    tenantId: access.tenantId,
    userId: request.userId,
    role,
  });
  if (!added || !person) throw new MembershipAlreadyExistsError();
  const after = await decided(write, request, 'APPROVED');
  const membership = { ...added, user: person };
  await recordJoinRequestEvent(tx, audit, 'join_request.approved', request, after);
  await recordJoinedMembership(tx, audit, membership, {
    method: 'join_request',
    joinRequestId: request.id,
    joinCodeId: request.joinCodeId,
    domainId: request.domainId,
  });
  return membership;
}

export async function rejectJoinRequest(write: TenantWrite, joinRequestId: string): Promise<JoinRequestView> {
  const request = await pendingToDecide(write, joinRequestId);
  const after = await decided(write, request, 'REJECTED');
  await recordJoinRequestEvent(write.tx, write.audit, 'join_request.rejected', request, after);
  return after;
}

/** Rejects, and stops the person joining the tenant by any code or domain until an ADMIN lifts it. */
export async function blockJoinRequest(write: TenantWrite, joinRequestId: string): Promise<JoinRequestView> {
  const request = await pendingToDecide(write, joinRequestId);
  const after = await decided(write, request, 'BLOCKED');
  await insertJoinBlock(write.tx, {
    tenantId: write.access.tenantId,
    userId: request.userId,
    joinRequestId: request.id,
    blockedBy: write.caller.userId,
  });
  await recordJoinRequestEvent(write.tx, write.audit, 'join_request.blocked', request, after);
  return after;
}

export async function liftJoinBlock({ tx, access, audit }: TenantWrite, userId: string): Promise<void> {
  const lifted = await deleteJoinBlock(tx, access.tenantId, userId);
  if (!lifted) throw new JoinBlockNotFoundError(userId);
  await recordUnblockEvent(tx, audit, lifted);
}

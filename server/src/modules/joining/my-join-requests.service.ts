import { lockTenantForWrite } from '../../access/access.repository.js';
import { type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database } from '../../db/database.js';
import { JoinRequestNotFoundError, JoinRequestNotPendingError } from '../../errors/index.js';
import type { AuditContext } from '../audit/audit-context.js';
import {
  decideJoinRequest,
  findJoinRequestInTenant,
  type JoinRequestView,
  listMyJoinRequestsAs,
  type MyJoinRequestView,
  tenantOfJoinRequest,
} from './join-requests.repository.js';
import { recordJoinRequestEvent } from './joining-events.js';

export async function listMyJoinRequests(db: Database, requester: Requester): Promise<MyJoinRequestView[]> {
  const { items } = await readAsCaller(db, requester, (subject) => listMyJoinRequestsAs(db, subject));
  return items;
}

/**
 * The person withdraws their request, in a transaction that first locks the request's tenant, as
 * the tenant's approvals do: a cancel and an approval run one after the other, and exactly one
 * wins. Anyone else's request, or one of a deleted tenant, is not found.
 */
export async function cancelMyJoinRequest(
  db: Database,
  audit: AuditContext,
  joinRequestId: string,
): Promise<JoinRequestView> {
  const subject = audit.actor.subject;
  if (subject === null) throw new Error('a join request cancelled by nobody');
  return db.transaction(async (tx) => {
    const tenantId = await tenantOfJoinRequest(tx, joinRequestId);
    if (tenantId === undefined) throw new JoinRequestNotFoundError(joinRequestId);
    const { user, tenant } = await lockTenantForWrite(tx, tenantId, subject);
    const request = await findJoinRequestInTenant(tx, tenantId, joinRequestId);
    if (!tenant.exists || !user || request?.userId !== user.id)
      throw new JoinRequestNotFoundError(joinRequestId);
    if (request.status !== 'PENDING') throw new JoinRequestNotPendingError(request.status);
    await decideJoinRequest(tx, tenantId, joinRequestId, { status: 'CANCELLED', decidedBy: user.id });
    const after = await findJoinRequestInTenant(tx, tenantId, joinRequestId);
    if (!after) throw new Error(`join request ${joinRequestId} vanished under its tenant's lock`);
    await recordJoinRequestEvent(tx, audit, 'join_request.cancelled', request, after);
    return after;
  });
}

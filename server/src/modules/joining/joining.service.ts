import { JOIN_REQUEST_DAYS, type JoinPreview } from '@tms/contract';
import { lockTenantForWrite } from '../../access/access.repository.js';
import { decideAsCaller, type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { CodeKeys } from '../../auth/code-keys.js';
import type { Database } from '../../db/database.js';
import {
  JoinBlockedError,
  JoinCodeNotFoundError,
  MembershipAlreadyExistsError,
  MembershipNotActiveError,
} from '../../errors/index.js';
import type { AuditContext } from '../audit/audit-context.js';
import { insertMembershipOfUser } from '../memberships/membership-changes.repository.js';
import type { MembershipWithUser } from '../memberships/memberships.repository.js';
import { findJoinCodeByHash, spendJoinCodeUse, tenantOfJoinCode } from './join-codes.repository.js';
import { previewJoinCodeAs } from './join-preview.repository.js';
import {
  findJoinRequestInTenant,
  findMembershipOfUser,
  findPendingJoinRequest,
  insertJoinRequest,
  isBlocked,
  type JoinRequestView,
} from './join-requests.repository.js';
import { JOIN_PURPOSE } from './joining.dto.js';
import { recordJoinedMembership, recordJoinRequestEvent } from './joining-events.js';

/** 201: a new member; 200: already an ACTIVE member, nothing changed; 202: a request awaits approval. */
export type JoinOutcome =
  | { kind: 'joined'; membership: MembershipWithUser }
  | { kind: 'member'; membership: MembershipWithUser }
  | { kind: 'requested'; request: JoinRequestView };

/**
 * Redeems a code, in a transaction that locks the code's tenant first, as every membership writer
 * of the tenant does: concurrent redemptions then run one after the other, and each sees the uses
 * the one before spent, so at most `maxUses` people get in. Joining never changes a membership
 * that exists (a SUSPENDED or ENDED member stays so), and never joins a deleted tenant.
 */
export async function joinWithCode(
  db: Database,
  audit: AuditContext,
  keys: CodeKeys,
  typed: string,
): Promise<JoinOutcome> {
  const lookupHash = keys.lookupHashOfTyped(JOIN_PURPOSE, typed);
  const subject = audit.actor.subject;
  if (subject === null) throw new Error('a join by nobody');
  if (lookupHash === undefined) throw new JoinCodeNotFoundError();
  return db.transaction(async (tx) => {
    const tenantId = await tenantOfJoinCode(tx, lookupHash);
    if (tenantId === undefined) throw new JoinCodeNotFoundError();
    const { user, tenant } = await lockTenantForWrite(tx, tenantId, subject);
    if (!tenant.exists || !user) throw new JoinCodeNotFoundError();
    const code = await findJoinCodeByHash(tx, tenantId, lookupHash);
    // Wrong, expired, revoked or used up: one answer, so that a try tells nothing of which.
    if (code?.status !== 'ACTIVE') throw new JoinCodeNotFoundError();
    const existing = await findMembershipOfUser(tx, tenantId, user.id);
    if (existing?.status === 'ACTIVE') return { kind: 'member', membership: existing };
    if (existing) throw new MembershipNotActiveError(existing.status);
    if (await isBlocked(tx, tenantId, user.id)) throw new JoinBlockedError();
    const pending = await findPendingJoinRequest(tx, tenantId, user.id);
    if (pending) return { kind: 'requested', request: pending };
    if (!(await spendJoinCodeUse(tx, tenantId, code.id))) throw new JoinCodeNotFoundError();
    if (code.requiresApproval) {
      const id = await insertJoinRequest(tx, {
        tenantId,
        userId: user.id,
        joinCodeId: code.id,
        role: code.role,
        days: JOIN_REQUEST_DAYS,
      });
      const request = await findJoinRequestInTenant(tx, tenantId, id);
      if (!request) throw new Error(`join request ${id} vanished in its own transaction`);
      await recordJoinRequestEvent(tx, audit, 'join_request.created', null, request);
      return { kind: 'requested', request };
    }
    const { added } = await insertMembershipOfUser(tx, { tenantId, userId: user.id, role: code.role });
    if (!added) throw new MembershipAlreadyExistsError();
    const membership = { ...added, user: { email: user.email, displayName: user.displayName } };
    await recordJoinedMembership(tx, audit, membership, { method: 'join_code', joinCodeId: code.id });
    return { kind: 'joined', membership };
  });
}

/** What redeeming the code would do for the caller, read with the caller in one statement. */
export async function previewJoinCode(
  db: Database,
  requester: Requester,
  keys: CodeKeys,
  typed: string,
): Promise<JoinPreview> {
  const lookupHash = keys.lookupHashOfTyped(JOIN_PURPOSE, typed);
  if (lookupHash === undefined) {
    // Still the caller first: whoever may not call learns nothing, not even that it was malformed.
    await decideAsCaller(db, requester);
    throw new JoinCodeNotFoundError();
  }
  const { items } = await readAsCaller(db, requester, (subject) =>
    previewJoinCodeAs(db, subject, lookupHash),
  );
  const [code] = items;
  if (code?.status !== 'ACTIVE') throw new JoinCodeNotFoundError();
  const outcome = code.isMember
    ? 'already_member'
    : code.isBlocked
      ? 'blocked'
      : code.requiresApproval || code.hasPendingRequest
        ? 'requires_approval'
        : 'joinable';
  return {
    tenantName: code.tenantName,
    tenantSlug: code.tenantSlug,
    role: code.role === 'TEACHER' ? 'TEACHER' : 'STUDENT',
    outcome,
  };
}

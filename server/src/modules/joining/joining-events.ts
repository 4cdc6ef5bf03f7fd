import type { AuditAction } from '@tms/contract';
import type { Executor } from '../../db/database.js';
import type { AuditContext } from '../audit/audit-context.js';
import { type AuditEventInput, recordAuditEvent } from '../audit/audit-events.repository.js';
import { toMembershipDto } from '../memberships/memberships.dto.js';
import type { MembershipWithUser } from '../memberships/memberships.repository.js';
import type { JoinCodeView } from './join-codes.repository.js';
import type { JoinBlockView, JoinRequestView } from './join-requests.repository.js';
import { toJoinCodeDto, toJoinRequestDto } from './joining.dto.js';

/** A code's change; never with the code itself (the trail and webhooks reach people who may not redeem it). */
export function recordJoinCodeEvent(
  tx: Executor,
  context: AuditContext,
  action: AuditAction,
  before: JoinCodeView | null,
  after: JoinCodeView,
): Promise<void> {
  return recordAuditEvent(tx, {
    tenantId: after.tenantId,
    action,
    target: { type: 'join_code', id: after.id },
    before: before && toJoinCodeDto(before),
    after: toJoinCodeDto(after),
    context,
  });
}

export const joinRequestEvent = (
  context: AuditContext,
  action: AuditAction,
  before: JoinRequestView | null,
  after: JoinRequestView,
): AuditEventInput => ({
  tenantId: after.tenantId,
  action,
  target: { type: 'join_request', id: after.id },
  before: before && toJoinRequestDto(before),
  after: toJoinRequestDto(after),
  context,
});

export function recordJoinRequestEvent(
  tx: Executor,
  context: AuditContext,
  action: AuditAction,
  before: JoinRequestView | null,
  after: JoinRequestView,
): Promise<void> {
  return recordAuditEvent(tx, joinRequestEvent(context, action, before, after));
}

export function recordUnblockEvent(tx: Executor, context: AuditContext, block: JoinBlockView): Promise<void> {
  return recordAuditEvent(tx, {
    tenantId: block.tenantId,
    action: 'join_request.unblocked',
    target: { type: 'user', id: block.userId },
    before: { ...block, createdAt: block.createdAt.toISOString() },
    after: null,
    context,
  });
}

/**
 * How a person joined without being added by hand: the code, the request when one was approved
 * (with the code or the domain that made it), or a verified domain at sign-in or verification.
 */
export type JoinedVia =
  | { method: 'join_code'; joinCodeId: string }
  | {
      method: 'join_request';
      joinRequestId: string;
      joinCodeId: string | null;
      domainId: string | null;
    }
  | { method: 'domain'; domainId: string };

/** membership.created, saying how the person got in (the webhooks' readers tell a code from an admin's add). */
export const joinedMembershipEvent = (
  context: AuditContext,
  membership: MembershipWithUser,
  joinedVia: JoinedVia,
): AuditEventInput => ({
  tenantId: membership.tenantId,
  action: 'membership.created',
  target: { type: 'membership', id: membership.id },
  before: null,
  after: { ...toMembershipDto(membership), joinedVia },
  context,
});

export function recordJoinedMembership(
  tx: Executor,
  context: AuditContext,
  membership: MembershipWithUser,
  joinedVia: JoinedVia,
): Promise<void> {
  return recordAuditEvent(tx, joinedMembershipEvent(context, membership, joinedVia));
}

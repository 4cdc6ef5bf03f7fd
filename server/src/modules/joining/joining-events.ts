import type { AuditAction } from '@tms/contract';
import type { Executor } from '../../db/database.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordAuditEvent } from '../audit/audit-events.repository.js';
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

export function recordJoinRequestEvent(
  tx: Executor,
  context: AuditContext,
  action: AuditAction,
  before: JoinRequestView | null,
  after: JoinRequestView,
): Promise<void> {
  return recordAuditEvent(tx, {
    tenantId: after.tenantId,
    action,
    target: { type: 'join_request', id: after.id },
    before: before && toJoinRequestDto(before),
    after: toJoinRequestDto(after),
    context,
  });
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

/** How a person joined without being added by hand: the code, and the request when one was approved. */
export type JoinedVia =
  | { method: 'join_code'; joinCodeId: string }
  | {
      method: 'join_request';
      joinRequestId: string;
      joinCodeId: string | null;
    };

/** membership.created, saying how the person got in (the webhooks' readers tell a code from an admin's add). */
export function recordJoinedMembership(
  tx: Executor,
  context: AuditContext,
  membership: MembershipWithUser,
  joinedVia: JoinedVia,
): Promise<void> {
  return recordAuditEvent(tx, {
    tenantId: membership.tenantId,
    action: 'membership.created',
    target: { type: 'membership', id: membership.id },
    before: null,
    after: { ...toMembershipDto(membership), joinedVia },
    context,
  });
}

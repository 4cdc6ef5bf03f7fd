import type { AuditAction } from '@tms/contract';
import type { Executor } from '../../db/database.js';
import type { Statement } from '../../db/fixed-statement.js';
import type { AuditContext } from '../audit/audit-context.js';
import {
  type AuditEventInput,
  auditEventStatement,
  type Change,
  recordAuditEvent,
} from '../audit/audit-events.repository.js';
import { toMembershipDto } from './memberships.dto.js';
import type { MembershipWithUser } from './memberships.repository.js';

/**
 * A membership's change, recorded in the change's transaction: the membership as the API showed
 * it before and shows it after (null for one created or removed).
 */
export function recordMembershipEvent(
  tx: Executor,
  context: AuditContext,
  action: AuditAction,
  before: MembershipWithUser | null,
  after: MembershipWithUser | null,
): Promise<void> {
  return recordAuditEvent(tx, membershipEvent(context, action, before, after));
}

/**
 * The statement that records a membership's change, for a tenant write to pipeline; with `change`,
 * the statement that makes it as well (auditEventStatement).
 */
export const membershipEventStatement = (
  context: AuditContext,
  action: AuditAction,
  before: MembershipWithUser | null,
  after: MembershipWithUser | null,
  change?: Change,
): Statement => auditEventStatement(membershipEvent(context, action, before, after), change);

function membershipEvent(
  context: AuditContext,
  action: AuditAction,
  before: MembershipWithUser | null,
  after: MembershipWithUser | null,
): AuditEventInput {
  const membership = after ?? before;
  if (!membership) throw new Error('a membership event without a membership');
  return {
    tenantId: membership.tenantId,
    action,
    target: { type: 'membership', id: membership.id },
    before: before && toMembershipDto(before),
    after: after && toMembershipDto(after),
    context,
  };
}

/** A PATCH that changed the role is a role change (dates may come with it); otherwise its dates changed. */
export const patchActionOf = (before: MembershipWithUser, after: MembershipWithUser): AuditAction =>
  before.role !== after.role ? 'membership.role_changed' : 'membership.terms_changed';

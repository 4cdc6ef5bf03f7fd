import type { AuditAction } from '@tms/contract';
import type { Executor } from '../../db/database.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordAuditEvent } from '../audit/audit-events.repository.js';
import { toInvitationDto } from './invitations.dto.js';
import type { InvitationView } from './invitations.repository.js';

/** An invitation's change, recorded in its transaction, as the API showed it before and shows it after. */
export function recordInvitationEvent(
  tx: Executor,
  context: AuditContext,
  action: AuditAction,
  before: InvitationView | null,
  after: InvitationView,
): Promise<void> {
  return recordAuditEvent(tx, {
    tenantId: after.tenantId,
    action,
    target: { type: 'invitation', id: after.id },
    before: before && toInvitationDto(before),
    after: toInvitationDto(after),
    context,
  });
}

import type { AuditAction } from '@tms/contract';
import type { Executor } from '../../db/database.js';
import type { GuardianLinkRow, PairingCodeRow } from '../../db/schema.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordAuditEvent } from '../audit/audit-events.repository.js';
import { toGuardianInvitationDto } from './guardian-invitations.dto.js';
import type { GuardianInvitationView } from './guardian-invitations.repository.js';
import { toGuardianLinkDto, toPairingCodeSummary } from './guardians.dto.js';

/** A link's change, recorded in its transaction, as the API showed it before and shows it after. */
export function recordLinkEvent(
  tx: Executor,
  context: AuditContext,
  action: Extract<AuditAction, `guardian_link.${string}`>,
  before: GuardianLinkRow | null,
  after: GuardianLinkRow | null,
): Promise<void> {
  const link = after ?? before;
  if (!link) throw new Error('a guardian link event without a link');
  return recordAuditEvent(tx, {
    tenantId: link.tenantId,
    action,
    target: { type: 'guardian_link', id: link.id },
    before: before && toGuardianLinkDto(before),
    after: after && toGuardianLinkDto(after),
    context,
  });
}

/** A pairing code's change: never the code itself, which the service keeps only as a hash. */
export function recordCodeEvent(
  tx: Executor,
  context: AuditContext,
  action: Extract<AuditAction, `pairing_code.${string}`>,
  before: PairingCodeRow | null,
  after: PairingCodeRow,
): Promise<void> {
  return recordAuditEvent(tx, {
    tenantId: after.tenantId,
    action,
    target: { type: 'pairing_code', id: after.id },
    before: before && toPairingCodeSummary(before),
    after: toPairingCodeSummary(after),
    context,
  });
}

/** A guardian invitation's change, with its address: the trail is for the tenant's ADMINs and above. */
export function recordGuardianInvitationEvent(
  tx: Executor,
  context: AuditContext,
  action: Extract<AuditAction, `guardian_invitation.${string}`>,
  before: GuardianInvitationView | null,
  after: GuardianInvitationView,
): Promise<void> {
  return recordAuditEvent(tx, {
    tenantId: after.tenantId,
    action,
    target: { type: 'guardian_invitation', id: after.id },
    before: before && toGuardianInvitationDto(before),
    after: toGuardianInvitationDto(after),
    context,
  });
}

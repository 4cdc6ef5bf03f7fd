import type { AuditAction } from '@tms/contract';
import type { Executor } from '../../db/database.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordAuditEvent } from '../audit/audit-events.repository.js';
import { toDomainDto } from './domains.dto.js';
import type { DomainView } from './domains.repository.js';

/** A domain's change, in the transaction that makes it (the trail and the webhooks with it). */
export function recordDomainEvent(
  tx: Executor,
  context: AuditContext,
  action: AuditAction,
  before: DomainView | null,
  after: DomainView | null,
): Promise<void> {
  const target = after ?? before;
  if (!target) throw new Error('a domain event without the domain');
  return recordAuditEvent(tx, {
    tenantId: target.tenantId,
    action,
    target: { type: 'domain', id: target.id },
    before: before && toDomainDto(before),
    after: after && toDomainDto(after),
    context,
  });
}

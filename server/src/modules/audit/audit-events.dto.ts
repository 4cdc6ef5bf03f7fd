import type { AuditAction, AuditEvent, AuditTargetType } from '@tms/contract';
import type { AuditEventRow } from '../../db/schema.js';

export const toAuditEventDto = (row: AuditEventRow): AuditEvent => ({
  auditEventId: row.id,
  tenantId: row.tenantId,
  action: row.action as AuditAction,
  actor: { userId: row.actorUserId, subject: row.actorSubject, isSuperAdmin: row.actorIsSuperAdmin },
  target: { type: row.targetType as AuditTargetType, id: row.targetId },
  before: row.before as Record<string, unknown> | null,
  after: row.after as Record<string, unknown> | null,
  requestId: row.requestId,
  occurredAt: row.occurredAt.toISOString(),
  sequence: Number(row.sequence),
});

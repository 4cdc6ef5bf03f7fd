import { z } from 'zod';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { pageQuery } from '../common/pagination.js';
import { AUDIT_ACTION_NAMES, AUDIT_TARGET_TYPES } from './audit-actions.js';

export const AuditActionSchema = z.enum(AUDIT_ACTION_NAMES).describe('What happened (see docs/audit.md)');

export const AuditEventSchema = z.object({
  auditEventId: UuidSchema,
  tenantId: UuidSchema.nullable().describe('The tenant the change belongs to; null for platform events'),
  action: AuditActionSchema,
  actor: z
    .object({
      userId: UuidSchema.nullable(),
      subject: z.string().nullable().describe('The token subject; null once the user is erased'),
      isSuperAdmin: z.boolean().describe('Whether the actor acted as a super administrator'),
    })
    .describe('Who made the change; every field null (and isSuperAdmin false) for the purge and the CLI'),
  target: z.object({ type: z.enum(AUDIT_TARGET_TYPES), id: UuidSchema }),
  before: z.record(z.string(), z.unknown()).nullable().describe('The resource as the API showed it before'),
  after: z.record(z.string(), z.unknown()).nullable().describe('The resource as the API shows it after'),
  requestId: z.string().nullable().describe('The X-Request-Id of the request that made the change'),
  occurredAt: TimestampSchema,
  sequence: z
    .number()
    .int()
    .describe('1, 2, 3… per tenant (one sequence for platform events) in commit order, without gaps'),
});
export type AuditEvent = z.infer<typeof AuditEventSchema>;

const auditFilters = {
  action: AuditActionSchema.optional(),
  actorUserId: UuidSchema.optional().describe('Only changes made by this user'),
  targetId: UuidSchema.optional().describe('Only changes of this resource (tenant, membership, invitation…)'),
  since: z.string().datetime().optional().describe('Only events at or after this instant'),
  until: z.string().datetime().optional().describe('Only events before this instant'),
  ...pageQuery,
};

export const ListTenantAuditEventsQuerySchema = z.object(auditFilters);
export type ListTenantAuditEventsQuery = z.infer<typeof ListTenantAuditEventsQuerySchema>;

export const ListAllAuditEventsQuerySchema = z.object({
  ...auditFilters,
  tenantId: UuidSchema.optional().describe("Only this tenant's events (platform events have none)"),
});
export type ListAllAuditEventsQuery = z.infer<typeof ListAllAuditEventsQuerySchema>;

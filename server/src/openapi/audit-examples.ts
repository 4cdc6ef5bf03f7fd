import type { AuditEvent, Membership } from '@tms/contract';
import { encodeSortedCursor } from '../pagination/cursor.js';
import { ADA, alanStudent, GREEN_VALLEY, ok } from './examples.js';

/*
 * The examples of the audit routes (issue 14), in the story of examples.ts: Ada Head suspends
 * Alan Turing, and a super administrator looks at the platform's events.
 */

const alanSuspended: Membership = {
  ...alanStudent,
  status: 'SUSPENDED',
  suspendedAt: '2025-03-12T13:20:05.441Z',
  suspensionReason: 'Fees unpaid for the spring term',
  version: 2,
  updatedAt: '2025-03-12T13:20:05.441Z',
};

const suspended: AuditEvent = {
  auditEventId: '01958ac1-3d21-7c4e-9a0b-51f2e6d7c801',
  tenantId: GREEN_VALLEY,
  action: 'membership.suspended',
  actor: { userId: ADA.userId, subject: 'auth0|ada-head', isSuperAdmin: false },
  target: { type: 'membership', id: alanStudent.tenantMembershipId },
  before: alanStudent,
  after: alanSuspended,
  requestId: '5b7e0c1d-2f3a-4d8e-9c6b-7a1f0e2d3c4b',
  occurredAt: '2025-03-12T13:20:05.441Z',
  sequence: 7,
};

const granted: AuditEvent = {
  auditEventId: '01958ac4-0f11-7a2b-8c3d-4e5f60718293',
  tenantId: null,
  action: 'super_admin.granted',
  actor: { userId: null, subject: null, isSuperAdmin: false },
  target: { type: 'user', id: '0195609b-8d6d-765b-8440-46f6e8ab8b94' },
  before: { userId: '0195609b-8d6d-765b-8440-46f6e8ab8b94', subject: 'auth0|grace', isSuperAdmin: false },
  after: { userId: '0195609b-8d6d-765b-8440-46f6e8ab8b94', subject: 'auth0|grace', isSuperAdmin: true },
  requestId: null,
  occurredAt: '2025-03-12T14:00:00.000Z',
  sequence: 3,
};

const page = (data: AuditEvent[], nextCursor: string | null) => ({ ...ok(data), meta: { nextCursor } });

/** Success response examples of the audit routes, by operationId and status. */
export const AUDIT_RESPONSE_EXAMPLES = {
  listTenantAuditEvents: {
    200: {
      suspension: {
        summary: "Who suspended Alan, and when (`targetId=` Alan's membership)",
        value: page([suspended], null),
      },
      more: {
        summary: 'A page with more after it (`limit=1`)',
        value: page([suspended], encodeSortedCursor('sequence', { key: '7', id: suspended.auditEventId })),
      },
    },
  },
  listAuditEvents: {
    200: {
      platform: {
        summary: 'A platform event (no tenant) and a tenant event, newest first',
        value: page([granted, suspended], null),
      },
    },
  },
};

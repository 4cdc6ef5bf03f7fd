import { z } from 'zod';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { pageQuery } from '../common/pagination.js';
import { INVITATION_STATUSES } from '../lifecycle.js';
import { EmailSchema } from '../tenants/tenants.schemas.js';
import { GuardianRelationshipSchema } from './guardians.schemas.js';

/** A guardian invitation can be accepted for this many days. */
export const GUARDIAN_INVITATION_DAYS = 14;
export const GUARDIAN_INVITATION_SOURCES = ['API', 'ROSTER'] as const;

export const GuardianInvitationStatusSchema = z
  .enum(INVITATION_STATUSES)
  .describe(
    'PENDING until accepted, declined or revoked; EXPIRED once past `expiresAt` without an answer. ' +
      'Each is its own answer: a school can tell a declined invitation from one never answered',
  );

/** A guardian invitation as the school and the invitee see it. */
export const GuardianInvitationSchema = z.object({
  guardianInvitationId: UuidSchema,
  tenantId: UuidSchema,
  studentUserId: UuidSchema,
  email: z
    .string()
    .nullable()
    .describe(
      "The invitee's address as the school wrote it: for the tenant's ADMINs and above (and the " +
        'TEACHER who just made it, in the answer to its creation), null for TEACHERs in lists',
    ),
  relationship: GuardianRelationshipSchema,
  status: GuardianInvitationStatusSchema,
  source: z
    .enum(GUARDIAN_INVITATION_SOURCES)
    .describe(
      'How it was made: by POST …/guardian-invitations, or by a roster import (its guardian columns)',
    ),
  expiresAt: TimestampSchema,
  createdAt: TimestampSchema,
  createdBy: UuidSchema.nullable().describe('Who made it; null once that user is gone'),
  answeredAt: TimestampSchema.nullable().describe('When it was accepted, declined or revoked'),
  guardianUserId: UuidSchema.nullable().describe('Who accepted it: the guardian of the link it made'),
  updatedAt: TimestampSchema,
});
export type GuardianInvitation = z.infer<typeof GuardianInvitationSchema>;

/** A guardian invitation as its invitee sees it: which school asks, for whom. */
export const MyGuardianInvitationSchema = GuardianInvitationSchema.extend({
  tenantSlug: z.string(),
  tenantName: z.string(),
  studentDisplayName: z
    .string()
    .nullable()
    .describe('The student the invitee is asked to be a guardian of: their name, nothing else'),
});
export type MyGuardianInvitation = z.infer<typeof MyGuardianInvitationSchema>;

export const CreateGuardianInvitationBodySchema = z
  .object({
    email: EmailSchema.describe("The guardian's address: they accept under this address, verified"),
    relationship: GuardianRelationshipSchema,
  })
  .strict();
export type CreateGuardianInvitationBody = z.infer<typeof CreateGuardianInvitationBodySchema>;

export const GuardianInvitationIdParams = z.object({
  tenantId: UuidSchema.describe(
    "The tenant's `tenantId` (a UUID), as `POST /admin/tenants` or `GET /me` gave it",
  ),
  guardianInvitationId: UuidSchema.describe(
    "The invitation's `guardianInvitationId`; one of another tenant is not found here",
  ),
});

export const MyGuardianInvitationIdParams = z.object({
  guardianInvitationId: UuidSchema.describe(
    "The invitation's `guardianInvitationId`, as `GET /me/guardian-invitations` gave it; one " +
      'addressed to someone else is not found',
  ),
});

export const ListGuardianInvitationsQuerySchema = z.object({
  ...pageQuery,
  status: GuardianInvitationStatusSchema.optional().describe(
    'Only the invitations in this status (EXPIRED as shown: pending past `expiresAt`)',
  ),
  studentUserId: UuidSchema.optional().describe("Only this student's invitations"),
});
export type ListGuardianInvitationsQuery = z.infer<typeof ListGuardianInvitationsQuerySchema>;

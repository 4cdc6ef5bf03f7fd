import { z } from 'zod';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { pageQuery } from '../common/pagination.js';
import { INVITATION_STATUSES } from '../lifecycle.js';
import { RoleLevelSchema, RoleSchema } from '../memberships/memberships.schemas.js';
import { DisplayNameSchema, EmailSchema } from '../tenants/tenants.schemas.js';

export const INVITATION_DAYS_DEFAULT = 7;
export const INVITATION_DAYS_MAX = 30;

export const InvitationStatusSchema = z
  .enum(INVITATION_STATUSES)
  .describe(
    'PENDING until accepted, declined or revoked; EXPIRED once past `expiresAt` without an answer ' +
      '(resending makes it PENDING again)',
  );

export const InvitationSchema = z.object({
  invitationId: UuidSchema,
  tenantId: UuidSchema,
  email: z.string().describe('The address as the inviter wrote it; compared by its canonical form'),
  displayName: z
    .string()
    .nullable()
    .describe(
      "The inviter's name for the person: the membership's label until they have a name of their own",
    ),
  role: RoleSchema,
  roleLevel: RoleLevelSchema,
  status: InvitationStatusSchema,
  expiresAt: TimestampSchema,
  invitedByUserId: UuidSchema.nullable().describe('Who invited; null once that user is gone'),
  acceptedAt: TimestampSchema.nullable(),
  acceptedUserId: UuidSchema.nullable().describe('Who accepted it: the user the new membership belongs to'),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type Invitation = z.infer<typeof InvitationSchema>;

/** An invitation as its invitee sees it: which tenant asks, by name. */
export const MyInvitationSchema = InvitationSchema.extend({
  tenantSlug: z.string(),
  tenantName: z.string(),
});
export type MyInvitation = z.infer<typeof MyInvitationSchema>;

export const InvitationIdParams = z.object({
  tenantId: UuidSchema.describe(
    "The tenant's `tenantId` (a UUID), as `POST /admin/tenants` or `GET /me` gave it",
  ),
  invitationId: UuidSchema.describe(
    "The invitation's `invitationId`; one of another tenant is not found here",
  ),
});

export const MyInvitationIdParams = z.object({
  invitationId: UuidSchema.describe(
    "The invitation's `invitationId`, as `GET /me/invitations` gave it; one addressed to someone else is not found",
  ),
});

export const CreateInvitationBodySchema = z
  .object({
    email: EmailSchema,
    role: RoleSchema,
    expiresInDays: z
      .number()
      .int()
      .min(1)
      .max(INVITATION_DAYS_MAX)
      .default(INVITATION_DAYS_DEFAULT)
      .describe(
        `How long the invitation can be accepted, in days: 1 to ${INVITATION_DAYS_MAX} (default ${INVITATION_DAYS_DEFAULT})`,
      ),
    displayName: DisplayNameSchema.optional().describe(
      "The tenant's name for the person, shown until they have a name of their own",
    ),
  })
  .strict();
export type CreateInvitationBody = z.input<typeof CreateInvitationBodySchema>;

/** One status, or several as the key repeated (`?status=PENDING&status=EXPIRED`): any of them. */
const statusQuery = z
  .union([InvitationStatusSchema, z.array(InvitationStatusSchema).min(1)])
  .transform((value) => [...new Set(Array.isArray(value) ? value : [value])]);

export const ListInvitationsQuerySchema = z.object({
  ...pageQuery,
  status: statusQuery
    .optional()
    .describe(
      'Only the invitations in these statuses (EXPIRED as shown: pending past `expiresAt`); ' +
        'repeat the key for several (`status=PENDING&status=EXPIRED`)',
    ),
});
export type ListInvitationsQuery = z.infer<typeof ListInvitationsQuerySchema>;

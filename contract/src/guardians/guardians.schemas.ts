import { z } from 'zod';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { pageQuery } from '../common/pagination.js';
import { MembershipStatusSchema, RoleLevelSchema } from '../memberships/memberships.schemas.js';
import { ROLES } from '../roles.js';

export const GUARDIAN_RELATIONSHIPS = ['PARENT', 'GUARDIAN', 'RELATIVE', 'OTHER'] as const;
export const GUARDIAN_LINK_STATUSES = ['PENDING', 'ACTIVE', 'REVOKED'] as const;
export const GUARDIAN_LINK_SOURCES = ['INVITATION', 'PAIRING_CODE', 'ROSTER'] as const;

/** At most this many ACTIVE guardians per student and tenant. */
export const GUARDIANS_PER_STUDENT_MAX = 6;
/** At most this many live (unused, unexpired, unrevoked) pairing codes per student and tenant. */
export const PAIRING_CODES_PER_STUDENT_MAX = 5;
export const PAIRING_CODE_DAYS = 7;

export const GuardianRelationshipSchema = z
  .enum(GUARDIAN_RELATIONSHIPS)
  .describe('What the guardian is to the student, as the guardian or the school says');
export const GuardianLinkStatusSchema = z
  .enum(GUARDIAN_LINK_STATUSES)
  .describe('ACTIVE while it holds; REVOKED once removed, or once the student left the tenant');
export const GuardianLinkSourceSchema = z
  .enum(GUARDIAN_LINK_SOURCES)
  .describe('How the link was made: an accepted invitation, a redeemed pairing code, a roster');

export type GuardianRelationship = z.infer<typeof GuardianRelationshipSchema>;
export type GuardianLinkStatus = z.infer<typeof GuardianLinkStatusSchema>;
export type GuardianLinkSource = z.infer<typeof GuardianLinkSourceSchema>;

export const GuardianLinkSchema = z.object({
  guardianLinkId: UuidSchema,
  tenantId: UuidSchema,
  studentUserId: UuidSchema,
  guardianUserId: UuidSchema,
  relationship: GuardianRelationshipSchema,
  status: GuardianLinkStatusSchema,
  source: GuardianLinkSourceSchema,
  createdAt: TimestampSchema,
  revokedAt: TimestampSchema.nullable(),
});
export type GuardianLink = z.infer<typeof GuardianLinkSchema>;

/** A link as the school sees it: who the guardian is, their address only for ADMINs and above. */
export const SchoolGuardianLinkSchema = GuardianLinkSchema.extend({
  guardianDisplayName: z.string().nullable(),
  guardianEmail: z
    .string()
    .nullable()
    .describe("The guardian's address: for the tenant's ADMINs and above only, null for TEACHERs"),
});
export type SchoolGuardianLink = z.infer<typeof SchoolGuardianLinkSchema>;

/** One of the guardian's children, in one tenant: their name and whether their membership is ACTIVE. */
export const WardSchema = z.object({
  guardianLinkId: UuidSchema,
  tenantId: UuidSchema,
  tenantSlug: z.string(),
  tenantName: z.string(),
  studentUserId: UuidSchema,
  studentDisplayName: z.string().nullable(),
  relationship: GuardianRelationshipSchema,
  membershipStatus: MembershipStatusSchema.describe(
    "The student's membership in that tenant: only its status, whatever it is",
  ),
  createdAt: TimestampSchema,
});
export type Ward = z.infer<typeof WardSchema>;

/** One of the caller's own guardians, as the student sees them. */
export const MyGuardianSchema = z.object({
  guardianLinkId: UuidSchema,
  tenantId: UuidSchema,
  guardianUserId: UuidSchema,
  guardianDisplayName: z.string().nullable(),
  relationship: GuardianRelationshipSchema,
  source: GuardianLinkSourceSchema,
  createdAt: TimestampSchema,
});
export type MyGuardian = z.infer<typeof MyGuardianSchema>;

export const PairingCodeSchema = z.object({
  pairingCodeId: UuidSchema,
  tenantId: UuidSchema,
  studentUserId: UuidSchema,
  code: z
    .string()
    .describe('8 characters without look-alikes, shown this once: the service keeps only its hash'),
  expiresAt: TimestampSchema,
  createdAt: TimestampSchema,
});
export type PairingCode = z.infer<typeof PairingCodeSchema>;

/** A pairing code as the audit trail records it: never the code itself. */
export const PairingCodeSummarySchema = PairingCodeSchema.omit({ code: true }).extend({
  revokedAt: TimestampSchema.nullable(),
});
export type PairingCodeSummary = z.infer<typeof PairingCodeSummarySchema>;

export const RedeemPairingCodeBodySchema = z
  .object({
    code: z.string().min(1).max(64).describe('The pairing code, as the student or the school gave it'),
    relationship: GuardianRelationshipSchema,
  })
  .strict();
export type RedeemPairingCodeBody = z.infer<typeof RedeemPairingCodeBodySchema>;

/** What another app of the platform decides on: the user's role here, and whose guardian they are. */
export const TenantAccessSummarySchema = z.object({
  tenantId: UuidSchema,
  userId: UuidSchema,
  // Its own enum, not RoleSchema's: that one is a named component of the OpenAPI document.
  role: z.enum(ROLES).nullable().describe('null: no membership here'),
  roleLevel: RoleLevelSchema.nullable(),
  status: MembershipStatusSchema.nullable().describe(
    'null: no membership here; only ACTIVE opens the tenant',
  ),
  guardianOf: z.array(UuidSchema).describe('The students (userId) the user is an ACTIVE guardian of here'),
});
export type TenantAccessSummary = z.infer<typeof TenantAccessSummarySchema>;

const tenantIdParam = UuidSchema.describe(
  "The tenant's `tenantId` (a UUID), as `POST /admin/tenants` or `GET /me` gave it",
);

export const StudentParams = z.object({
  tenantId: tenantIdParam,
  userId: UuidSchema.describe("The student's `userId`: a user with a STUDENT membership in the tenant"),
});

export const UserInTenantParams = z.object({
  tenantId: tenantIdParam,
  userId: UuidSchema.describe('Any user; one without a membership or link here answers nulls'),
});

export const GuardianLinkIdParams = z.object({
  tenantId: tenantIdParam,
  guardianLinkId: UuidSchema.describe("The link's `guardianLinkId`; one of another tenant is not found here"),
});

export const ListGuardianLinksQuerySchema = z.object({
  ...pageQuery,
  status: GuardianLinkStatusSchema.optional().describe('Only the links in this status'),
});
export type ListGuardianLinksQuery = z.infer<typeof ListGuardianLinksQuerySchema>;

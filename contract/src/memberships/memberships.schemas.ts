import { z } from 'zod';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { pageQuery, queryBoolean, searchQuery } from '../common/pagination.js';
import { ROLE_LEVEL, ROLES } from '../roles.js';
import { DisplayNameSchema, EmailSchema } from '../tenants/tenants.schemas.js';

export const RoleSchema = z.enum(ROLES);
const roleLevels = Object.values(ROLE_LEVEL) as [number, ...number[]];
export const RoleLevelSchema = z
  .number()
  .int()
  .refine((n) => roleLevels.includes(n))
  .describe('OWNER 40, ADMIN 30, TEACHER 20, STUDENT 10');

export const UserSummarySchema = z.object({
  userId: UuidSchema,
  email: z.string().nullable(),
  displayName: z.string().nullable(),
});
export type UserSummary = z.infer<typeof UserSummarySchema>;

export const MembershipSchema = z.object({
  tenantMembershipId: UuidSchema,
  tenantId: UuidSchema,
  userId: UuidSchema,
  role: RoleSchema,
  roleLevel: RoleLevelSchema,
  version: z.number().int().min(1).describe('Increases on every change; sent as the ETag'),
  user: UserSummarySchema,
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type Membership = z.infer<typeof MembershipSchema>;

export const MembershipIdParams = z.object({
  tenantId: UuidSchema.describe(
    "The tenant's `tenantId` (a UUID), as `POST /admin/tenants` or `GET /me` gave it",
  ),
  tenantMembershipId: UuidSchema.describe(
    "The membership's `tenantMembershipId` (a UUID); one of another tenant is not found here",
  ),
});

export const CreateMembershipBodySchema = z.union([
  z.object({ role: RoleSchema, userId: UuidSchema }).strict(),
  z.object({ role: RoleSchema, email: EmailSchema, displayName: DisplayNameSchema.optional() }).strict(),
]);
export type CreateMembershipBody = z.infer<typeof CreateMembershipBodySchema>;

export const UpdateMembershipBodySchema = z.object({ role: RoleSchema }).strict();
export type UpdateMembershipBody = z.infer<typeof UpdateMembershipBodySchema>;

/** The orders a member table offers; each keeps its cursor exact across pages and ties. */
export const MEMBERSHIP_SORTS = ['createdAt', '-createdAt', 'email', 'displayName'] as const;
export type MembershipSort = (typeof MEMBERSHIP_SORTS)[number];

export const ListMembershipsQuerySchema = z.object({
  ...pageQuery,
  role: RoleSchema.optional().describe('Only the memberships with this role'),
  q: searchQuery.optional().describe('Case-insensitive substring of the email or the display name'),
  sort: z
    .enum(MEMBERSHIP_SORTS)
    .default('createdAt')
    .describe(
      'createdAt (oldest first, the default), -createdAt (newest first), email or displayName ' +
        '(A to Z, case-insensitive, members without one last); ties in creation order',
    ),
  includeTotal: queryBoolean
    .optional()
    .describe('true: `meta.total` says how many memberships match the filters (one more query)'),
});
export type ListMembershipsQuery = z.infer<typeof ListMembershipsQuerySchema>;

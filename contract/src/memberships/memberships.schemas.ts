import { z } from 'zod';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { pageQuery, searchQuery } from '../common/pagination.js';
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

export const MembershipIdParams = z.object({ tenantId: UuidSchema, tenantMembershipId: UuidSchema });

export const CreateMembershipBodySchema = z.union([
  z.object({ role: RoleSchema, userId: UuidSchema }).strict(),
  z.object({ role: RoleSchema, email: EmailSchema, displayName: DisplayNameSchema.optional() }).strict(),
]);
export type CreateMembershipBody = z.infer<typeof CreateMembershipBodySchema>;

export const UpdateMembershipBodySchema = z.object({ role: RoleSchema }).strict();
export type UpdateMembershipBody = z.infer<typeof UpdateMembershipBodySchema>;

export const ListMembershipsQuerySchema = z.object({
  ...pageQuery,
  role: RoleSchema.optional(),
  q: searchQuery.optional().describe('Case-insensitive substring of the email or the display name'),
});
export type ListMembershipsQuery = z.infer<typeof ListMembershipsQuerySchema>;

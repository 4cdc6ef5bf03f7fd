import { z } from 'zod';
import { UuidSchema } from '../common/ids.js';
import { ROLES } from '../roles.js';

/** What a directory's group may give: never OWNER (ownership passes by transfer, by a person). */
export const SCIM_GROUP_ROLES = ROLES.filter((role) => role !== 'OWNER') as ['ADMIN', 'TEACHER', 'STUDENT'];
export const ScimGroupRoleSchema = z.enum(SCIM_GROUP_ROLES);

export const ScimGroupSummarySchema = z.object({
  groupId: UuidSchema,
  displayName: z.string(),
  externalId: z.string().nullable(),
  memberCount: z.number().int().min(0),
  role: ScimGroupRoleSchema.nullable().describe('The role its members get; null: none'),
});
export type ScimGroupSummary = z.infer<typeof ScimGroupSummarySchema>;

export const ScimGroupIdParams = z.object({
  tenantId: UuidSchema.describe("The tenant's `tenantId` (a UUID)"),
  groupId: UuidSchema.describe("The group's id, as SCIM shows it; one of another tenant is not found here"),
});

export const SetScimGroupRoleBodySchema = z.object({ role: ScimGroupRoleSchema }).strict();
export type SetScimGroupRoleBody = z.infer<typeof SetScimGroupRoleBodySchema>;
export type ScimGroupRole = z.infer<typeof ScimGroupRoleSchema>;

import { z } from 'zod';
import { UuidSchema } from '../common/ids.js';
import { RoleLevelSchema, RoleSchema } from '../memberships/memberships.schemas.js';

export const MeSchema = z.object({
  user: z.object({
    userId: UuidSchema,
    email: z.string().nullable(),
    displayName: z.string().nullable(),
    isSuperAdmin: z.boolean(),
  }),
  memberships: z.array(
    z.object({
      tenantMembershipId: UuidSchema,
      tenantId: UuidSchema,
      tenantSlug: z.string(),
      tenantName: z.string(),
      role: RoleSchema,
      roleLevel: RoleLevelSchema,
    }),
  ),
});
export type Me = z.infer<typeof MeSchema>;

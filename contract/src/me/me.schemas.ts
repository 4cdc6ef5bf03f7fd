import { z } from 'zod';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { MembershipStatusSchema, RoleLevelSchema, RoleSchema } from '../memberships/memberships.schemas.js';

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
      // Every membership is listed, whatever its status: only an ACTIVE one opens the tenant.
      status: MembershipStatusSchema,
      startsAt: TimestampSchema.nullable(),
      endsAt: TimestampSchema.nullable(),
    }),
  ),
  guardianOf: z
    .array(
      z.object({
        tenantId: UuidSchema,
        tenantSlug: z.string(),
        tenantName: z.string(),
        studentUserIds: z.array(UuidSchema),
      }),
    )
    .describe(
      "The tenants where the caller is an ACTIVE guardian, and of whom: a guardian link opens none of the tenant's routes",
    ),
});
export type Me = z.infer<typeof MeSchema>;

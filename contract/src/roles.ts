/** Highest first. Shared by zod (z.enum) and drizzle (pgEnum) so the two can never disagree. */
export const ROLES = ['OWNER', 'ADMIN', 'TEACHER', 'STUDENT'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_LEVEL = {
  OWNER: 40,
  ADMIN: 30,
  TEACHER: 20,
  STUDENT: 10,
} as const satisfies Record<Role, number>;
export type RoleLevel = (typeof ROLE_LEVEL)[Role];

/** The lowest level that may manage a tenant's memberships. */
export const TENANT_ADMIN_LEVEL = ROLE_LEVEL.ADMIN;

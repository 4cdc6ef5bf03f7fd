import { ROLE_LEVEL, type Role } from '@tms/contract';

/*
 * Who may do what in a tenant, as data: the role ladder (OWNER 40 > ADMIN 30 > TEACHER 20 >
 * STUDENT 10, from the contract) and the few actions above it that only an OWNER takes, whatever
 * the route lets in. A super administrator acts as an OWNER of every tenant (access/decide-access.ts).
 */

export { ROLE_LEVEL };

export const levelOf = (role: Role): number => ROLE_LEVEL[role];

/**
 * The level of a caller with no ACTIVE membership in the tenant, let through by a tenantCaller
 * route (a guardian revoking their own link): below every role.
 */
export const NO_ROLE_LEVEL = 0;

/**
 * Actions only an OWNER takes, though ADMINs may reach their routes (and read what they change):
 * handing the tenant over is the OWNER's decision; an endpoint sends the tenant's whole history
 * (every member's name and address) to a URL of the caller's choosing, signed with a secret only
 * its creator sees.
 */
export const OWNER_ONLY = {
  ownershipTransfer: 'offer or cancel an ownership transfer',
  webhooks: 'change the tenant’s webhook endpoints',
} as const;

export type OwnerOnlyAction = keyof typeof OWNER_ONLY;

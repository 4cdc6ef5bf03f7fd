/**
 * The states of the membership lifecycle, shared by zod (z.enum) and drizzle (pgEnum) like the roles.
 * See docs/lifecycle.md for the diagram and the rules.
 */

/** A membership's status. Only SUSPENDED is stored; SCHEDULED and ENDED follow from the term dates. */
export const MEMBERSHIP_STATUSES = ['ACTIVE', 'SUSPENDED', 'SCHEDULED', 'ENDED'] as const;
export type MembershipStatus = (typeof MEMBERSHIP_STATUSES)[number];

/** An invitation's status. EXPIRED: still PENDING in the row, but past `expiresAt`. */
export const INVITATION_STATUSES = ['PENDING', 'ACCEPTED', 'DECLINED', 'REVOKED', 'EXPIRED'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

/** An ownership transfer's status. EXPIRED: still PENDING in the row, but past `expiresAt`. */
export const TRANSFER_STATUSES = ['PENDING', 'ACCEPTED', 'DECLINED', 'CANCELLED', 'EXPIRED'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/** A tenant's status, for the admin list's filter: a DELETED tenant is restorable until purged. */
export const TENANT_STATUSES = ['ACTIVE', 'DELETED'] as const;
export type TenantStatus = (typeof TENANT_STATUSES)[number];

/** A webhook delivery's status: PENDING while it is tried (with backoff), then DELIVERED or FAILED. */
export const WEBHOOK_DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** A join code's status, as shown: ACTIVE until revoked, past `expiresAt`, or used `maxUses` times. */
export const JOIN_CODE_STATUSES = ['ACTIVE', 'EXPIRED', 'USED_UP', 'REVOKED'] as const;
export type JoinCodeStatus = (typeof JOIN_CODE_STATUSES)[number];

/**
 * A join request's status. EXPIRED: still PENDING in the row, but past `expiresAt`; BLOCKED: refused,
 * and the person may not join the tenant by a code or a domain again until the block is lifted.
 */
export const JOIN_REQUEST_STATUSES = [
  'PENDING',
  'APPROVED',
  'REJECTED',
  'BLOCKED',
  'CANCELLED',
  'EXPIRED',
] as const;
export type JoinRequestStatus = (typeof JOIN_REQUEST_STATUSES)[number];
